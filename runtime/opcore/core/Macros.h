// Compiler helpers shared by the whole runtime: branch hints, no-inline, symbol visibility.
#pragma once

#define OPCORE_LIKELY(x) (__builtin_expect(static_cast<bool>(x), 1))
#define OPCORE_UNLIKELY(x) (__builtin_expect(static_cast<bool>(x), 0))
#define OPCORE_NOINLINE __attribute__((noinline))
#define OPCORE_ALWAYS_INLINE inline __attribute__((always_inline))

#define OPCORE_CONCAT_IMPL(a, b) a##b
#define OPCORE_CONCAT(a, b) OPCORE_CONCAT_IMPL(a, b)
#define OPCORE_UID(prefix) OPCORE_CONCAT(prefix, __COUNTER__)

// Functions shared by host code and CUDA device code (the element types, the pointwise functors).
#if defined(__CUDACC__)
#define OPCORE_HOST_DEVICE __host__ __device__
#else
#define OPCORE_HOST_DEVICE
#endif
