#include "rmsnorm_bwd_bulk.cuh"
template __global__ void ladder::rmsnorm_bwd_bulk<__nv_bfloat16,2,512>(__nv_bfloat16*, float*, const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, int, int, int, int, int, float, float);
template __global__ void ladder::add_rmsnorm_bwd_bulk<float,1,256>(float*, float*, float*, const float*, const float*, const float*, const float*, const float*, int, int, int, int, int, int, int, int, float, float);
