// opcore.Generator: a Python handle on a C++ Generator (torch.Generator's surface), the
// process-wide opcore.default_generator, and the module functions over the default generators
// (initial_seed, seed, get_rng_state, set_rng_state; manual_seed is in Module.cpp).
//   g = opcore.Generator().manual_seed(42)
//   opcore.randperm(10, generator=g); opcore.rand(3, generator=g)
// A generator's state is its seed and its offset in the Philox stream (Note [Philox
// generator]): get_state() gives them as 16 bytes (a uint8 tensor, each little-endian), which
// set_state() takes back, on any generator.
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>
#include <opcore/python/Wrap.h>

#include <opcore/core/Empty.h>
#include <opcore/core/Error.h>

#include <cstring>
#include <random>
#include <string>

namespace opcore::python {
namespace {

constexpr int64_t kStateBytes = 16;

Generator& generatorOf(PyObject* self) { return reinterpret_cast<PyGenerator*>(self)->generator; }

uint64_t seedArgument(const char* where, PyObject* arg) {
  if (!isInt(arg)) throw TypeError(std::string(where) + ": seed must be an int, not " + typeName(arg));
  // As torch: any int, taken modulo 2^64 (a negative seed is its two's complement).
  const unsigned long long seed = PyLong_AsUnsignedLongLongMask(arg);
  if (seed == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw PythonError();
  return seed;
}

uint64_t nondeterministicSeed() {
  std::random_device device;
  return (uint64_t{device()} << 32) | device();
}

PyObject* stateOf(const Generator& g) {
  std::lock_guard<std::mutex> lock(g.mutex());
  const uint64_t words[2] = {g.get()->current_seed(), g.get()->get_offset()};
  TensorBase state = detail::empty({kStateBytes}, ScalarType::Byte, Device(DeviceType::CPU));
  std::memcpy(state.data_ptr(), words, sizeof words);  // x86 and ARM are little-endian
  return wrap(Tensor(std::move(state)));
}

void setState(const char* where, const Generator& g, PyObject* arg) {
  if (!isTensor(arg)) throw TypeError(std::string(where) + ": expected a uint8 tensor (from get_state()), not " + typeName(arg));
  const Tensor& state = unpackTensor(arg);
  OPCORE_CHECK(state.scalar_type() == ScalarType::Byte && state.device().is_cpu(), where,
               ": expected a uint8 CPU tensor (from get_state()), but got a ", toString(state.scalar_type()),
               " tensor on ", state.device());
  OPCORE_CHECK(state.dim() == 1 && state.numel() == kStateBytes, where, ": RNG state is wrong size: expected ",
               kStateBytes, " bytes (a seed and an offset) in one dimension, but got a tensor of size ", state.sizes());
  uint8_t bytes[kStateBytes];
  const uint8_t* data = state.data_ptr<uint8_t>();
  for (int64_t i = 0; i < kStateBytes; ++i) bytes[i] = data[i * state.stride(0)];
  uint64_t words[2];
  std::memcpy(words, bytes, sizeof words);
  std::lock_guard<std::mutex> lock(g.mutex());
  g.get()->setCurrentSeed(words[0]);
  g.get()->set_offset(words[1]);
}

// opcore.Generator(device='cpu')
PyObject* generatorNew(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  OPCORE_PY_BEGIN
  PyObject* device = nullptr;
  static const char* names[] = {"device", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", const_cast<char**>(names), &device)) return nullptr;
  const Device d = device ? toDevice(device) : Device(DeviceType::CPU);
  return newGeneratorObject(type, Generator::create(d));
  OPCORE_PY_END
}

void generatorDealloc(PyObject* self) {
  generatorOf(self).~Generator();
  Py_TYPE(self)->tp_free(self);
}

PyObject* generatorManualSeed(PyObject* self, PyObject* arg) {
  OPCORE_PY_BEGIN
  generatorOf(self).set_current_seed(seedArgument("manual_seed()", arg));
  return Py_NewRef(self);
  OPCORE_PY_END
}

PyObject* generatorSeed(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  const uint64_t seed = nondeterministicSeed();
  generatorOf(self).set_current_seed(seed);
  return PyLong_FromUnsignedLongLong(seed);
  OPCORE_PY_END
}

PyObject* generatorInitialSeed(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  return PyLong_FromUnsignedLongLong(generatorOf(self).current_seed());
  OPCORE_PY_END
}

PyObject* generatorGetState(PyObject* self, PyObject*) {
  OPCORE_PY_BEGIN
  return stateOf(generatorOf(self));
  OPCORE_PY_END
}

PyObject* generatorSetState(PyObject* self, PyObject* arg) {
  OPCORE_PY_BEGIN
  setState("set_state()", generatorOf(self), arg);
  return Py_NewRef(self);
  OPCORE_PY_END
}

PyObject* generatorDevice(PyObject* self, void*) {
  OPCORE_PY_BEGIN
  return deviceObject(generatorOf(self).device());
  OPCORE_PY_END
}

PyMethodDef generator_methods[] = {
    {"manual_seed", generatorManualSeed, METH_O, "manual_seed(seed): restarts the stream of `seed`; returns self"},
    {"seed", generatorSeed, METH_NOARGS, "seed(): restarts from a nondeterministic seed and returns it"},
    {"initial_seed", generatorInitialSeed, METH_NOARGS, "initial_seed(): the seed the stream started from"},
    {"get_state", generatorGetState, METH_NOARGS, "get_state(): the seed and offset as a uint8 tensor of 16 bytes"},
    {"set_state", generatorSetState, METH_O, "set_state(state): takes get_state()'s bytes back; returns self"},
    {nullptr, nullptr, 0, nullptr}};

PyGetSetDef generator_getset[] = {
    {"device", generatorDevice, nullptr, "the device whose kernels the generator serves", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// Module functions over the default generators, as torch's.
PyObject* initialSeed(PyObject*, PyObject*) {
  OPCORE_PY_BEGIN
  return PyLong_FromUnsignedLongLong(defaultGenerator(DeviceType::CPU).current_seed());
  OPCORE_PY_END
}

PyObject* seed(PyObject*, PyObject*) {
  OPCORE_PY_BEGIN
  const uint64_t s = nondeterministicSeed();
  opcore::manual_seed(s);
  return PyLong_FromUnsignedLongLong(s);
  OPCORE_PY_END
}

PyObject* getRngState(PyObject*, PyObject*) {
  OPCORE_PY_BEGIN
  return stateOf(defaultGenerator(DeviceType::CPU));
  OPCORE_PY_END
}

PyObject* setRngState(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  setState("set_rng_state()", defaultGenerator(DeviceType::CPU), arg);
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyMethodDef generator_functions[] = {
    {"initial_seed", initialSeed, METH_NOARGS, "initial_seed(): the default CPU generator's seed"},
    {"seed", seed, METH_NOARGS, "seed(): seeds the default generators nondeterministically; returns the seed"},
    {"get_rng_state", getRngState, METH_NOARGS, "get_rng_state(): the default CPU generator's state (uint8 tensor)"},
    {"set_rng_state", setRngState, METH_O, "set_rng_state(state): sets the default CPU generator's state"},
    {nullptr, nullptr, 0, nullptr}};

PyObject* default_generator = nullptr;

}  // namespace

PyTypeObject PyGeneratorType = {PyVarObject_HEAD_INIT(nullptr, 0) "opcore.Generator"};

PyObject* newGeneratorObject(PyTypeObject* type, Generator g) {
  PyObject* obj = type->tp_alloc(type, 0);
  if (!obj) throw PythonError();
  new (&generatorOf(obj)) Generator(std::move(g));
  return obj;
}

PyObject* defaultGeneratorObject() { return default_generator; }

bool initGenerator(PyObject* module) {
  PyGeneratorType.tp_basicsize = sizeof(PyGenerator);
  PyGeneratorType.tp_flags = Py_TPFLAGS_DEFAULT;
  PyGeneratorType.tp_new = generatorNew;
  PyGeneratorType.tp_dealloc = generatorDealloc;
  PyGeneratorType.tp_methods = generator_methods;
  PyGeneratorType.tp_getset = generator_getset;
  PyGeneratorType.tp_doc = "Generator(device='cpu'): a Philox random stream that random operators take as generator=";
  if (PyType_Ready(&PyGeneratorType) < 0) return false;
  if (PyModule_AddObjectRef(module, "Generator", reinterpret_cast<PyObject*>(&PyGeneratorType)) < 0) return false;
  try {
    default_generator = newGeneratorObject(&PyGeneratorType, defaultGenerator(DeviceType::CPU));
  } catch (const PythonError&) {
    return false;
  }
  if (PyModule_AddObjectRef(module, "default_generator", default_generator) < 0) return false;
  return PyModule_AddFunctions(module, generator_functions) == 0;
}

}  // namespace opcore::python
