// The device runtime under opcore.cuda (python/opcore/cuda.py): device counts, the current
// device, streams, synchronization and the caching allocator's memory counters, for any
// device type through its DeviceGuardImpl (DeviceGuard.h) and caching allocator
// (CachingDeviceAllocator.h), so that a PrivateUse1 backend's module can use them too.
// Devices arrive resolved (an index) from the Python side, which knows the current device.
//   opcore._C._memory_stats(opcore.device("cuda", 0))["allocated_bytes"]
#include <opcore/python/Module.h>

#include <opcore/core/CachingDeviceAllocator.h>
#include <opcore/core/DeviceGuard.h>
#include <opcore/core/Generator.h>
#include <opcore/python/Exceptions.h>
#include <opcore/python/PythonArgParser.h>
#include <opcore/python/Wrap.h>

#include <functional>

namespace opcore::python {
namespace {

DeviceType deviceTypeOf(PyObject* arg) { return toDevice(arg).type(); }

// The device type's DeviceGuardImpl, or an error saying this build or machine has none.
const DeviceGuardImpl& guardImpl(DeviceType type) {
  const DeviceGuardImpl* impl = deviceGuardImpl(type);
  if (!impl) {
    throw Error(detail::strCat("opcore was built without ", type, " support",
                               type == DeviceType::CUDA ? " (no nvcc was found when it was configured)" : ""));
  }
  return *impl;
}

Device indexedDevice(PyObject* arg) {
  const Device d = toDevice(arg);
  if (!d.has_index()) throw ValueError(detail::strCat("expected a device with an index, such as '", d, ":0'"));
  return d;
}

PyObject* deviceCountOf(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  return PyLong_FromLong(deviceCount(deviceTypeOf(arg)));
  OPCORE_PY_END
}

PyObject* currentDevice(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  return PyLong_FromLong(guardImpl(deviceTypeOf(arg)).currentDevice());
  OPCORE_PY_END
}

PyObject* setDevice(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  const Device d = indexedDevice(arg);
  guardImpl(d.type()).setDevice(d.index());
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyObject* synchronizeDevice(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  const Device d = indexedDevice(arg);
  const DeviceGuardImpl& impl = guardImpl(d.type());
  GilRelease no_gil;
  impl.synchronizeDevice(d.index());
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// Streams cross as (device, id) pairs; opcore.cuda.Stream holds them.
Stream streamArg(PyObject* args) {
  PyObject* device = nullptr;
  int id = 0;
  if (!PyArg_ParseTuple(args, "Oi", &device, &id)) throw PythonError();
  return Stream(indexedDevice(device), id);
}

PyObject* newStream(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  const Device d = indexedDevice(arg);
  return PyLong_FromLong(guardImpl(d.type()).newStream(d).id);
  OPCORE_PY_END
}

PyObject* currentStreamId(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  return PyLong_FromLong(currentStream(indexedDevice(arg)).id);
  OPCORE_PY_END
}

// _exchange_stream(device, id): makes the stream current on its device; returns the previous id.
PyObject* exchangeStream(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  const Stream s = streamArg(args);
  return PyLong_FromLong(guardImpl(s.device.type()).exchangeStream(s).id);
  OPCORE_PY_END
}

PyObject* synchronizeStream(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  const Stream s = streamArg(args);
  const DeviceGuardImpl& impl = guardImpl(s.device.type());
  GilRelease no_gil;
  impl.synchronizeStream(s);
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyObject* queryStream(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  const Stream s = streamArg(args);
  return PyBool_FromLong(guardImpl(s.device.type()).queryStream(s));
  OPCORE_PY_END
}

// Events cross as their handle's address (an int; 0 before the first record) with their device.
void* eventArg(PyObject* handle) {
  void* event = PyLong_AsVoidPtr(handle);
  if (!event && PyErr_Occurred()) throw PythonError();
  return event;
}

// _event_record(event, device, stream_id, timing): records on the stream; returns the handle.
PyObject* eventRecord(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  PyObject *event = nullptr, *device = nullptr;
  int id = 0, timing = 0;
  if (!PyArg_ParseTuple(args, "OOip", &event, &device, &id, &timing)) throw PythonError();
  const Stream s(indexedDevice(device), id);
  return PyLong_FromVoidPtr(guardImpl(s.device.type()).recordEvent(eventArg(event), s, timing != 0));
  OPCORE_PY_END
}

// _event_wait(event, device, stream_id): the stream's later work waits for the event.
PyObject* eventWait(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  PyObject *event = nullptr, *device = nullptr;
  int id = 0;
  if (!PyArg_ParseTuple(args, "OOi", &event, &device, &id)) throw PythonError();
  const Stream s(indexedDevice(device), id);
  guardImpl(s.device.type()).waitEvent(eventArg(event), s);
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// _event_query / _event_synchronize / _event_destroy(device, event) and
// _event_elapsed_time(device, start, end).
PyObject* eventCall(PyObject* args, int handles, const std::function<PyObject*(const DeviceGuardImpl&, void*, void*)>& call) {
  PyObject *device = nullptr, *first = nullptr, *second = nullptr;
  if (!PyArg_ParseTuple(args, handles == 1 ? "OO" : "OOO", &device, &first, &second)) throw PythonError();
  const DeviceGuardImpl& impl = guardImpl(indexedDevice(device).type());
  return call(impl, eventArg(first), handles == 2 ? eventArg(second) : nullptr);
}

PyObject* eventQuery(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  return eventCall(args, 1, [](const DeviceGuardImpl& impl, void* e, void*) { return PyBool_FromLong(impl.queryEvent(e)); });
  OPCORE_PY_END
}

PyObject* eventSynchronize(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  return eventCall(args, 1, [](const DeviceGuardImpl& impl, void* e, void*) {
    {
      GilRelease no_gil;
      impl.synchronizeEvent(e);
    }
    Py_RETURN_NONE;
  });
  OPCORE_PY_END
}

PyObject* eventDestroy(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  return eventCall(args, 1, [](const DeviceGuardImpl& impl, void* e, void*) {
    impl.destroyEvent(e);
    Py_RETURN_NONE;
  });
  OPCORE_PY_END
}

PyObject* eventElapsedTime(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  return eventCall(args, 2, [](const DeviceGuardImpl& impl, void* start, void* end) {
    return PyFloat_FromDouble(impl.elapsedTime(start, end));
  });
  OPCORE_PY_END
}

// _record_stream(tensor, device, id): Tensor.record_stream's C++ half.
PyObject* recordStream(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  PyObject* tensor = nullptr;
  PyObject* device = nullptr;
  int id = 0;
  if (!PyArg_ParseTuple(args, "OOi", &tensor, &device, &id)) throw PythonError();
  if (!isTensor(tensor)) throw TypeError("record_stream(): expected a Tensor, but got " + typeName(tensor));
  const Tensor& t = unpackTensor(tensor);
  CachingDeviceAllocator* cache = cachingAllocator(t.device());
  if (!cache) {
    throw Error(detail::strCat("record_stream: the tensor is on ", t.device(), ", whose memory has no caching allocator"));
  }
  cache->recordStream(t.unsafeGetTensorImpl()->storage()->data_ptr(), Stream(indexedDevice(device), id));
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// _memory_stats(device): the caching allocator's counters as a dict; {} for a device whose
// type has no caching allocator or which does not exist (torch.cuda.memory_stats() before
// CUDA is initialized).
PyObject* memoryStats(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  PyObject* dict = PyDict_New();
  if (!dict) return nullptr;
  CachingDeviceAllocator* cache = cachingAllocator(indexedDevice(arg));
  if (!cache) return dict;
  const DeviceMemoryStats s = cache->stats();
  const std::pair<const char*, int64_t> entries[] = {
      {"allocated_bytes.all.current", s.allocated_bytes}, {"allocated_bytes.all.peak", s.max_allocated_bytes},
      {"reserved_bytes.all.current", s.reserved_bytes},   {"reserved_bytes.all.peak", s.max_reserved_bytes},
      {"segment.all.current", s.segments},                {"num_alloc_retries", s.alloc_retries},
      {"num_ooms", s.ooms}};
  for (const auto& [key, value] : entries) {
    PyObject* v = PyLong_FromLongLong(value);
    if (!v || PyDict_SetItemString(dict, key, v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(dict);
      return nullptr;
    }
    Py_DECREF(v);
  }
  return dict;
  OPCORE_PY_END
}

PyObject* resetPeakMemoryStats(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  if (CachingDeviceAllocator* cache = cachingAllocator(indexedDevice(arg))) cache->resetPeakStats();
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// _empty_cache(device_type): every device of the type gives its cached memory back.
PyObject* emptyCache(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  const DeviceType type = deviceTypeOf(arg);
  for (int i = 0, n = deviceCount(type); i < n; ++i) {
    if (CachingDeviceAllocator* cache = cachingAllocator(Device(type, static_cast<DeviceIndex>(i)))) {
      GilRelease no_gil;
      cache->emptyCache();
    }
  }
  Py_RETURN_NONE;
  OPCORE_PY_END
}

// The default generator of a device type reseeded (every GPU shares the one of CUDA).
PyObject* manualSeedType(PyObject*, PyObject* args) {
  OPCORE_PY_BEGIN
  PyObject* type = nullptr;
  unsigned long long seed = 0;
  if (!PyArg_ParseTuple(args, "OK", &type, &seed)) return nullptr;
  defaultGenerator(deviceTypeOf(type)).set_current_seed(seed);
  Py_RETURN_NONE;
  OPCORE_PY_END
}

PyObject* initialSeedType(PyObject*, PyObject* arg) {
  OPCORE_PY_BEGIN
  return PyLong_FromUnsignedLongLong(defaultGenerator(deviceTypeOf(arg)).current_seed());
  OPCORE_PY_END
}

PyMethodDef methods[] = {
    {"_device_count", deviceCountOf, METH_O, "_device_count(type): the usable devices of a type (0 without any)"},
    {"_current_device", currentDevice, METH_O, "_current_device(type): the calling thread's current device index"},
    {"_set_device", setDevice, METH_O, "_set_device(device): makes the device current for the calling thread"},
    {"_synchronize", synchronizeDevice, METH_O, "_synchronize(device): waits for all of the device's work"},
    {"_new_stream", newStream, METH_O, "_new_stream(device): the id of a stream for new work on the device"},
    {"_current_stream", currentStreamId, METH_O, "_current_stream(device): the id of the thread's current stream there"},
    {"_exchange_stream", exchangeStream, METH_VARARGS,
     "_exchange_stream(device, id): makes the stream current; returns the previous one's id"},
    {"_synchronize_stream", synchronizeStream, METH_VARARGS, "_synchronize_stream(device, id): waits for its work"},
    {"_stream_query", queryStream, METH_VARARGS, "_stream_query(device, id): whether the stream's work has finished"},
    {"_event_record", eventRecord, METH_VARARGS,
     "_event_record(event, device, id, timing): records the event (made when 0) on the stream; returns it"},
    {"_event_wait", eventWait, METH_VARARGS, "_event_wait(event, device, id): the stream's later work waits for it"},
    {"_event_query", eventQuery, METH_VARARGS, "_event_query(device, event): whether the work before it has finished"},
    {"_event_synchronize", eventSynchronize, METH_VARARGS, "_event_synchronize(device, event): waits for that work"},
    {"_event_elapsed_time", eventElapsedTime, METH_VARARGS,
     "_event_elapsed_time(device, start, end): milliseconds between two timed events"},
    {"_event_destroy", eventDestroy, METH_VARARGS, "_event_destroy(device, event): gives the event back"},
    {"_record_stream", recordStream, METH_VARARGS,
     "_record_stream(tensor, device, id): the tensor's memory is reused only after that stream's work"},
    {"_memory_stats", memoryStats, METH_O, "_memory_stats(device): the caching allocator's counters ({} without one)"},
    {"_reset_peak_memory_stats", resetPeakMemoryStats, METH_O, "_reset_peak_memory_stats(device)"},
    {"_manual_seed_type", manualSeedType, METH_VARARGS,
     "_manual_seed_type(type, seed): reseeds the device type's default generator"},
    {"_initial_seed_type", initialSeedType, METH_O, "_initial_seed_type(type): its default generator's seed"},
    {"_empty_cache", emptyCache, METH_O, "_empty_cache(type): cached device memory goes back to every device"},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool initDeviceRuntime(PyObject* module) {
  if (PyModule_AddFunctions(module, methods) < 0) return false;
  // opcore.cuda.OutOfMemoryError, a RuntimeError as torch.cuda.OutOfMemoryError is.
  PyObject* oom = PyErr_NewExceptionWithDoc("opcore.cuda.OutOfMemoryError",
                                            "A device allocator had no room for a request, even after "
                                            "returning its cached memory.",
                                            PyExc_RuntimeError, nullptr);
  if (!oom || PyModule_AddObject(module, "OutOfMemoryError", oom) < 0) {
    Py_XDECREF(oom);
    return false;
  }
  outOfMemoryErrorType() = oom;
  return true;
}

}  // namespace opcore::python
