// What a kernel costs an SM, read from its cubin: registers a thread, local memory a thread (the
// stack frame, where spilled registers live) and static shared memory a block. The same numbers
// ptxas prints with -v, taken from the image itself, so they are known for every image the
// harness compiles or loads, cache hits included, and on a machine without a GPU. With them, a
// digest of the kernel's machine code, so that two compiles can be told apart where the numbers
// agree (a source edit, or a new NVRTC, that changed instructions and not their register count).
#pragma once
#include <string>
#include <string_view>

namespace ladder::toolchain {

struct KernelResources {
  int registers = 0;            // a thread's registers (EIATTR_REGCOUNT)
  int local_bytes = 0;          // a thread's stack frame (EIATTR_FRAME_SIZE): spills and local arrays
  int static_shared_bytes = 0;  // the block's static shared memory (its .nv.shared section)
  // A 128-bit digest (hex) of the kernel's .text section: its instructions as encoded, before the
  // loader fills in addresses. Equal digests, the same instructions. The whole cubin does not
  // serve: its symbol names for internal-linkage objects (the kernels' namespace constants) carry
  // an id that differs from one compile of the same source to the next. Empty where the image
  // has no such section.
  std::string code_digest;
};

struct KernelResourcesResult {
  bool ok = false;
  std::string error;  // why the numbers are unknown: not an ELF cubin, no such kernel, a bad section
  KernelResources resources;
};

// `cubin`: an sm_XX ELF image as NVRTC returns it; `kernel`: the entry's mangled (lowered) name.
// Never throws and never reads outside `cubin`: a malformed image gives ok == false.
KernelResourcesResult kernel_resources(std::string_view cubin, std::string_view kernel);

}  // namespace ladder::toolchain
