// The CPU fallback (runtime/opcore/library/CpuFallback.h).
//
// Note [CPU fallback]
// A backend rarely implements every operator at once; installed as its fallback, cpu_fallback
// runs the operators it lacks on the CPU:
//   1. every tensor argument on another device (alone, in a Tensor[] or a Tensor?[]) is copied
//      to the CPU with Tensor::to, so the backend must implement copy_ between its device
//      and the CPU: the fallback refuses to stand in for copy_ itself. Tensors on two devices
//      (npu:0 and npu:1) are refused, as a kernel of the backend would refuse them: the CPU
//      kernel cannot see it, and the results would go to one of them. CPU tensors beside the
//      device's are the operator's to accept or refuse, as its CPU kernel does;
//   2. the operator's CPU kernel runs (a redispatch to the CPU key: the layers above the
//      backend, autograd among them, have already run);
//   3. each argument the schema marks as written (Tensor(a!)) gets the CPU result copied
//      back into the caller's tensor, and a return aliasing it is that tensor again; every
//      other tensor returned is copied to the device of the first argument that was moved.
// A view operator cannot fall back: its result must share the device tensor's storage, and a
// copy would not, so the fallback refuses it, naming the operator. Each operator that falls
// back is reported once per process with a warning, since every call copies its tensors twice.
#include <opcore/library/CpuFallback.h>

#include <opcore/core/Error.h>
#include <opcore/dispatch/Dispatcher.h>
#include <opcore/ops/copy.h>
#include <opcore/ops/to.h>

#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace opcore {

namespace {

// Warns the first time `op` falls back in this process.
void warnOnce(const OperatorName& op, Device device) {
  static std::mutex mutex;
  static std::unordered_set<std::string>* const warned = new std::unordered_set<std::string>();  // leaked: used at exit
  const std::string name = op.str();
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!warned->insert(name).second) return;
  }
  detail::warn(detail::strCat("the operator '", name, "' is not implemented for ", Device(device.type()),
                              "; it runs on the CPU instead (the CPU fallback copies its tensors there and back)"));
}

// The device the call's tensors are on (other than the CPU and Meta) and the first argument
// found there.
struct CallDevice {
  std::optional<Device> device;
  const char* argument = nullptr;
};

// `value` (the argument `name` of `op`) with each tensor on another device replaced by its copy
// on the CPU; the first such device goes into *call, and another one is refused.
IValue toCpu(const OperatorName& op, const IValue& value, const char* name, CallDevice* call) {
  auto convert = [&](const TensorBase& t) -> TensorBase {
    if (!t.defined() || t.is_cpu() || t.is_meta()) return t;
    if (!call->device) {
      *call = {t.device(), name};
    } else {
      OPCORE_CHECK(t.device() == *call->device, op.str(),
                   ": expected all tensors to be on the same device, but found at least two devices, ",
                   *call->device, " (argument '", call->argument, "') and ", t.device(), " (argument '", name, "')");
    }
    return Tensor(t).to(Device(DeviceType::CPU));
  };
  if (value.isTensor()) return IValue(convert(value.toTensorBase()));
  if (value.isTensorList()) {
    std::vector<TensorBase> tensors;
    for (const TensorBase& t : value.toTensorList()) tensors.push_back(convert(t));
    return IValue(std::move(tensors));
  }
  if (value.isGenericList()) {  // Tensor?[]
    std::vector<IValue> items;
    for (const IValue& item : value.toGenericList()) {
      items.push_back(item.isTensor() ? IValue(convert(item.toTensorBase())) : item);
    }
    return IValue::list(std::move(items));
  }
  return value;
}

// `value` (a return) with each tensor copied to `device`.
IValue toDevice(const IValue& value, Device device) {
  auto convert = [&](const TensorBase& t) -> TensorBase { return t.defined() ? Tensor(t).to(device) : t; };
  if (value.isTensor()) return IValue(convert(value.toTensorBase()));
  if (value.isTensorList()) {
    std::vector<TensorBase> tensors;
    for (const TensorBase& t : value.toTensorList()) tensors.push_back(convert(t));
    return IValue(std::move(tensors));
  }
  return value;
}

// Copies the CPU tensors a kernel wrote back into the caller's (`original`).
void copyBack(const IValue& original, const IValue& cpu) {
  if (original.isTensor()) {
    Tensor target(original.toTensorBase());
    if (target.defined() && !target.is_cpu()) target.copy_(Tensor(cpu.toTensorBase()));
  } else if (original.isTensorList()) {
    const ArrayRef<TensorBase> targets = original.toTensorList();
    const ArrayRef<TensorBase> results = cpu.toTensorList();
    for (size_t i = 0; i < targets.size(); ++i) {
      if (!targets[i].is_cpu()) Tensor(targets[i]).copy_(Tensor(results[i]));
    }
  }
}

}  // namespace

void cpu_fallback(const OperatorHandle& op, Stack* stack) {
  const FunctionSchema& schema = op.schema();
  const OperatorName& name = schema.operatorName();
  OPCORE_CHECK(name.name != "aten::copy_",
               "the CPU fallback cannot stand in for aten::copy_: a backend implements copy_ between its "
               "device and the CPU itself, as the fallback copies with it");
  for (const Return& r : schema.returns()) {
    OPCORE_CHECK(!r.type.alias || r.type.isMutable(), "the operator '", name.str(),
                 "' is a view operator with no kernel for this backend; the CPU fallback cannot run it, "
                 "since its result must share the device tensor's storage");
  }
  const std::vector<Argument>& arguments = schema.arguments();
  OPCORE_INTERNAL_ASSERT(stack->size() >= arguments.size(), "cpu_fallback: too few values on the stack");
  const auto args_begin = stack->end() - static_cast<std::ptrdiff_t>(arguments.size());
  const std::vector<IValue> originals(args_begin, stack->end());
  CallDevice call;
  for (size_t i = 0; i < arguments.size(); ++i) {
    IValue& value = *(args_begin + static_cast<std::ptrdiff_t>(i));
    value = toCpu(name, value, arguments[i].name.c_str(), &call);
  }
  OPCORE_CHECK(call.device.has_value(), "the CPU fallback ran '", name.str(),
               "' with no tensor on a backend's device; a factory function needs the backend's own kernel");
  const Device device = *call.device;
  warnOnce(name, device);
  std::vector<IValue> written;  // the CPU arguments the kernel may write, in schema order
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].type.isMutable()) written.push_back(*(args_begin + static_cast<std::ptrdiff_t>(i)));
  }

  op.redispatchBoxed(DispatchKeySet(DispatchKey::CPU), *stack);

  for (size_t i = 0, w = 0; i < arguments.size(); ++i) {
    if (arguments[i].type.isMutable()) copyBack(originals[i], written[w++]);
  }
  const std::vector<Return>& returns = schema.returns();
  const auto returns_begin = stack->end() - static_cast<std::ptrdiff_t>(returns.size());
  for (size_t j = 0; j < returns.size(); ++j) {
    IValue& result = *(returns_begin + static_cast<std::ptrdiff_t>(j));
    if (returns[j].type.isMutable()) {  // Tensor(a!): the argument with the same alias set
      for (size_t i = 0; i < arguments.size(); ++i) {
        if (arguments[i].type.alias == returns[j].type.alias) result = originals[i];
      }
    } else {
      result = toDevice(result, device);
    }
  }
}

KernelFunction cpuFallback() {
  return KernelFunction::makeFromBoxedFunction<static_cast<void (*)(const OperatorHandle&, Stack*)>(&cpu_fallback)>();
}

}  // namespace opcore
