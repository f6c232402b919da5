// Programmatic dependent launch (sm_90 and later): a launch made with the driver's programmatic
// stream serialization may begin while the launch before it drains. The backward kernels let
// their column_sum launches begin at once (its blocks take SMs as the backward's blocks leave
// them); column_sum waits for the backward grid's completion, and its memory, before it reads
// the partials. Why: the gap between two dependent launches is a few microseconds, several
// percent of a backward pass at 4096x8192. Both are no-ops in launches made without the
// attribute and on earlier architectures, where the stream orders the launches as usual.
#pragma once

namespace ladder {
namespace norm {

// Every launch this grid's dependents wait for may now be scheduled.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Waits until the launch before this one has completed and its writes are visible.
__device__ __forceinline__ void wait_for_previous_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace norm
}  // namespace ladder
