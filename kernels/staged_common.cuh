// Staged rows for the forward kernels: each thread copies its chunks of the rows ahead into shared
// memory with cp.async while it normalizes the current one.
//
// Why: the register kernels hold a row's loads in registers, and at 64 registers a thread an SM
// holds at most one or two rows in flight; between a row's loads and its stores (the reduction,
// the weight) nothing else is read. Here a block owns a row group that walks the rows of a fixed
// grid, and STAGES-1 rows ahead are always on their way into shared memory, at no register cost.
//
// Every thread copies exactly the chunks it later reads itself (the same chunk grid as the
// register kernels), so cp.async.wait_group alone orders a copy before its use, and a stage is
// refilled only after the same thread has read it: no barrier guards the stages.
// A row is staged only when its pointers allow 16-byte accesses (RowAccess::vec), and only its
// chunks that lie wholly inside [0, d); the others are gathered from global memory when used.
#pragma once
#include "norm_common.cuh"

namespace ladder {
namespace norm {

__device__ __forceinline__ void cp_async16(void* smem, const void* global) {
  // .cg: through L2 only; each row is read once.
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(smem)), "l"(global)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// The shared memory of one block: STAGES stages of K tensors, each ITEMS chunks per thread.
// Thread tx's chunk i of tensor k in stage s sits at ((s * K + k) * ITEMS + i) * blockDim.x + tx:
// consecutive threads read consecutive 16-byte slots, free of bank conflicts.
template <int ITEMS, int K>
struct StageLayout {
  uint4* base;
  __device__ __forceinline__ uint4* slot(int stage, int k, int item) const {
    return base + ((stage * K + k) * ITEMS + item) * static_cast<int>(blockDim.x) + threadIdx.x;
  }
};

// True when the chunk at c0 lies wholly inside a row of `cols` columns on the vector path.
template <typename T>
__device__ __forceinline__ bool chunk_inside(int c0, int cols, bool vec) {
  return vec && c0 >= 0 && c0 + Elem<T>::kVec <= cols;
}

// A block's weight (w, Gemma's w as stored), staged once in dynamic shared memory (the wide
// register kernels' STAGE_WEIGHT builds). Why: in a block that fills its SM (or a third of it) a
// weight read after the reduction is a cache round trip during which nothing else runs, and the
// compiler cannot hoist it above the previous chunk's store (it cannot tell a weight from an
// output). Held in registers instead (the batch these builds took before) it cost 4 registers a
// chunk on top of the row and spilled. Copied here by cp.async at the block's start, it is on its
// way while the first row loads and reduces, at no register cost.
// Thread tx copies the weight's whole 16-byte chunks tx, tx + blockDim.x, ...: on the chunk grid
// of a row at phase 0 those are exactly the chunks it later reads, so cp.async.wait_group alone
// orders the copy before its use and no barrier is needed. A row off that grid (weight_vec_ok
// false), the weight's last partial chunk, a block of several row groups, a weight off the
// 16-byte grid, or a launch with fewer dynamic shared bytes than d / VEC * 16 read from global
// memory instead.
template <typename T>
struct StagedWeight {
  static constexpr int kVec = Elem<T>::kVec;
  const uint4* chunks = nullptr;  // null: not staged
  // Starts the copies (every thread of the block, once, before its first row).
  __device__ __forceinline__ void stage(const T* w, int d, uint4* shared) {
    const int whole = d / kVec;
    if (w == nullptr || offset_in_chunk(w) != 0 || blockDim.y != 1 ||
        dynamic_shared_bytes() < static_cast<unsigned>(whole) * kChunkBytes)
      return;
    for (int q = threadIdx.x; q < whole; q += blockDim.x) cp_async16(shared + q, w + q * kVec);
    cp_async_commit();
    chunks = shared;
  }
  // This thread's copies have landed; call before the first read (a no-op once they have).
  __device__ __forceinline__ void wait() const {
    if (chunks != nullptr) cp_async_wait<0>();
  }
  // Whether the weight chunk at c0 of a row (w_vec: weight_vec_ok for that row) is staged.
  // known_inside (as in store_chunk: the chunk is inside the row and w_vec holds) leaves one
  // test, the same for the whole block.
  __device__ __forceinline__ bool holds(int c0, int d, bool w_vec, bool known_inside) const {
    return chunks != nullptr && (known_inside || chunk_inside<T>(c0, d, w_vec));
  }
  __device__ __forceinline__ uint4 chunk(int c0) const { return chunks[c0 / kVec]; }
};

// Starts the copies of this thread's chunks of one row and commits them as one group (rows past
// the last commit an empty group instead: see walk_staged_rows).
template <typename T, int ITEMS, int K>
__device__ __forceinline__ void stage_row(const StageLayout<ITEMS, K>& layout, int stage,
                                          const T* const (&rows)[K], const RowAccess& access,
                                          int cols) {
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const int c0 = chunk_column<T, ITEMS>(0, i, access.phase);
    if (!chunk_inside<T>(c0, cols, access.vec)) continue;
#pragma unroll
    for (int k = 0; k < K; ++k) cp_async16(layout.slot(stage, k, i), rows[k] + c0);
  }
  cp_async_commit();
}

// Chunk i of tensor k of a staged row: from shared memory when it was staged, else gathered
// (its ends, or a row off the vector path); zero outside the row.
template <typename T, int ITEMS, int K>
__device__ __forceinline__ uint4 staged_chunk(const StageLayout<ITEMS, K>& layout, int stage,
                                              int k, int i, const T* row, int c0, int cols,
                                              bool vec) {
  if (chunk_inside<T>(c0, cols, vec)) return *layout.slot(stage, k, i);
  if (c0 >= cols || c0 + Elem<T>::kVec <= 0) return make_uint4(0u, 0u, 0u, 0u);
  return gather_chunk<T, false>(row, c0, cols);
}

// The row walk of a staged kernel: block b takes rows b, b + G, b + 2G, ... (G = gridDim.x).
struct StagedRows {
  long long first, step;
  __device__ __forceinline__ StagedRows()
      : first(blockIdx.x), step(gridDim.x) {}
  __device__ __forceinline__ long long row(int iteration) const {
    return first + static_cast<long long>(iteration) * step;
  }
};

// The walk of a staged kernel over its rows. stage_row_copies(row, stage) starts the copies of
// one row (stage_row); past the last row an empty group is committed instead. normalize(row,
// stage) runs once that row's copies have landed, while the next STAGES - 1 rows are in flight.
// The loop condition is uniform per block, so normalize may use barriers.
template <int STAGES, typename StageCopies, typename Normalize>
__device__ __forceinline__ void walk_staged_rows(int rows, StageCopies&& stage_row_copies,
                                                 Normalize&& normalize) {
  const StagedRows walk;
  auto stage = [&](int iteration) {
    const long long row = walk.row(iteration);
    if (row < rows) {
      stage_row_copies(row, iteration % STAGES);
    } else {
      cp_async_commit();
    }
  };
  for (int s = 0; s < STAGES - 1; ++s) stage(s);
  for (int it = 0; walk.row(it) < rows; ++it) {
    stage(it + STAGES - 1);
    cp_async_wait<STAGES - 1>();
    normalize(walk.row(it), it % STAGES);
  }
  cp_async_wait<0>();  // the empty groups past the last row
}

}  // namespace norm
}  // namespace ladder
