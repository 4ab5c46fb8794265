// Macros shared by host and device code; this header compiles under g++ and nvcc alike.
#pragma once

#if defined(__CUDACC__)
#define TG_HD __host__ __device__
#define TG_DEVICE __device__
#define TG_INLINE __forceinline__
#else
#define TG_HD
#define TG_DEVICE
#define TG_INLINE inline
#endif

// True while compiling the device pass of a .cu file.
#if defined(__CUDA_ARCH__)
#define TG_DEVICE_PASS 1
#else
#define TG_DEVICE_PASS 0
#endif

#if defined(__CUDACC__) || defined(__clang__)
#define TG_UNROLL _Pragma("unroll")
#else
#define TG_UNROLL _Pragma("GCC unroll 16")
#endif
