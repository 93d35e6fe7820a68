// The main job's network (examples/mlp.h) trained on npu:0: it prints the losses the CPU run
// prints (opcore_example), then what the device's allocator saw. Exits 1 if memory is left
// on the device once every tensor is gone.
#include "Npu.h"
#include "mlp.h"

#include <cstdio>

int main() {
  opcore::examples::trainMlp(opcore::Device(opcore::DeviceType::PrivateUse1, 0));
  const npu::AllocatorStats stats = npu::allocator_stats();
  std::printf("npu: %lld allocations, %lld bytes in %lld blocks still allocated\n",
              static_cast<long long>(stats.allocations), static_cast<long long>(stats.live_bytes),
              static_cast<long long>(stats.live_blocks));
  return stats.allocations > 0 && stats.live_bytes == 0 ? 0 : 1;
}
