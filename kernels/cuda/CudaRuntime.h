// The CUDA runtime's calls for the C++ side of the backend (CudaOps.cpp, the Python module's
// hooks): GPUs, streams and copies. Defined in CudaRuntime.cpp; every call throws
// opcore::Error with CUDA's message on failure.
//   Stream s = cuda::newStream(Device(DeviceType::CUDA, 0));
//   cuda::deviceCopy(host_ptr, gpu_ptr, nbytes, cuda::CopyKind::DeviceToHost);
#pragma once

#include <opcore/core/Stream.h>

#include <cstddef>

namespace opcore::cuda {

// The number of visible GPUs; 0 when there is none or the driver is missing.
int deviceCount();
// A stream of `device`'s pool (handed out round robin); waiting for a stream's work, and for
// all of a GPU's.
Stream newStream(Device device);
void synchronize(Stream stream);
void synchronizeDevice(int index);
// The calling thread's current stream on `device` (which must exist).
Stream currentStream(Device device);
// Work queued on `waiter` from now on waits for the work queued on `waited` so far (an event
// recorded on one and waited for on the other: the host does not wait).
void streamWait(Stream waiter, Stream waited);

// Copies on the current stream; a copy to the host returns once the bytes are there.
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };
void deviceCopy(void* dst, const void* src, size_t nbytes, CopyKind kind);
// The same without waiting, whichever the direction: for pinned host memory, which the copy
// reads or writes after this returns (the caller records the stream on its block).
void deviceCopyAsync(void* dst, const void* src, size_t nbytes, CopyKind kind);

}  // namespace opcore::cuda
