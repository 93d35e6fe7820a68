// Library: registering operator schemas and kernels with the dispatcher, usually through
// the OPCORE_LIBRARY macros at namespace scope:
//
//   OPCORE_LIBRARY(myops, m) {                  // defines the "myops" namespace (once)
//     m.def("scale(Tensor self, float factor) -> Tensor");
//   }
//   OPCORE_LIBRARY_IMPL(myops, CPU, m) {        // kernels for one dispatch key
//     m.impl("scale", OPCORE_FN(scale_cpu));
//   }
//   OPCORE_LIBRARY_IMPL(_, PrivateUse1, m) {    // a fallback for every operator
//     m.fallback(KernelFunction::makeFallthrough());
//   }
//
// Every registration is owned by its Library object: destroying the Library (at exit, or
// when a plugin is dlclose()d) removes exactly what it added.
#pragma once

#include <opcore/core/DispatchKey.h>
#include <opcore/core/Macros.h>
#include <opcore/dispatch/KernelFunction.h>
#include <opcore/dispatch/RegistrationHandle.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace opcore {

class Library {
 public:
  enum Kind {
    DEF,       // OPCORE_LIBRARY: claims the namespace, may def() and impl()
    FRAGMENT,  // OPCORE_LIBRARY_FRAGMENT: more defs for a namespace claimed elsewhere
    IMPL,      // OPCORE_LIBRARY_IMPL: impl() only, for one dispatch key
  };

  Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, uint32_t line);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  Library(Library&&) = default;
  Library& operator=(Library&&) = default;

  // Defines an operator from its schema ("scale(Tensor self, float factor) -> Tensor").
  Library& def(const char* schema);
  // Defines operator `name` with the schema inferred from `f`'s C++ types (see
  // InferSchema.h) and registers `f` as its CompositeImplicitAutograd kernel.
  template <typename Func>
  Library& def(const char* name, Func&& f) {
    KernelFunction kernel = makeKernel(std::forward<Func>(f));
    defInferred(name, kernel.inferredSchemaText());
    return implKernel(name, std::move(kernel), DispatchKey::CompositeImplicitAutograd);
  }

  // Registers a kernel for operator `name` ("add.out" or "aten::add.out") at this
  // library's dispatch key (CompositeImplicitAutograd in a DEF/FRAGMENT library).
  // `f` is OPCORE_FN(function), a function pointer, or a lambda.
  template <typename Func>
  Library& impl(const char* name, Func&& f) {
    return implKernel(name, makeKernel(std::forward<Func>(f)), key_);
  }
  // The same, at an explicit key (DEF and FRAGMENT libraries may register at any key).
  template <typename Func>
  Library& impl(const char* name, DispatchKey key, Func&& f) {
    return implKernel(name, makeKernel(std::forward<Func>(f)), key);
  }

  // Registers a dispatcher-wide fallback for this library's key; only in
  // OPCORE_LIBRARY_IMPL(_, Key, m) blocks. `kernel` is boxed or KernelFunction::makeFallthrough().
  Library& fallback(KernelFunction kernel);

 private:
  template <auto F>
  static KernelFunction makeKernel(CompileTimeFn<F> f) {
    return KernelFunction::makeFromUnboxedFunction(f);
  }
  static KernelFunction makeKernel(KernelFunction k) { return k; }
  template <typename Func>
  static KernelFunction makeKernel(Func&& f) {
    return KernelFunction::makeFromUnboxedFunctor(std::decay_t<Func>(std::forward<Func>(f)));
  }
  Library& implKernel(const char* name, KernelFunction kernel, std::optional<DispatchKey> key);
  void defInferred(const char* name, const std::optional<std::string>& inferred);
  std::string debug() const;

  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  const char* file_;
  uint32_t line_;
  std::vector<RegistrationHandleRAII> registrations_;
};

namespace detail {
// Runs a library's init function during static initialisation and owns the Library. A
// registration that throws there cannot be caught by anyone: it prints the block's location
// and the error to stderr, then aborts (rather than an anonymous std::terminate).
class LibraryInit {
 public:
  LibraryInit(Library::Kind kind, void (*init)(Library&), const char* ns,
              std::optional<DispatchKey> key, const char* file, uint32_t line);

 private:
  Library lib_;
};
}  // namespace detail

}  // namespace opcore

#define OPCORE_LIBRARY_BLOCK_(kind, ns, key, m, uid)                                            \
  static void OPCORE_CONCAT(uid, _init)(::opcore::Library&);                                    \
  static const ::opcore::detail::LibraryInit OPCORE_CONCAT(uid, _registration)(                 \
      ::opcore::Library::kind, &OPCORE_CONCAT(uid, _init), #ns, key, __FILE__, __LINE__);       \
  void OPCORE_CONCAT(uid, _init)(::opcore::Library & m)

// Defines the operators of namespace `ns`; one such block per namespace in the process.
#define OPCORE_LIBRARY(ns, m) \
  OPCORE_LIBRARY_BLOCK_(DEF, ns, std::nullopt, m, OPCORE_UID(opcore_library_))
// More definitions for namespace `ns`, claimed by an OPCORE_LIBRARY elsewhere.
#define OPCORE_LIBRARY_FRAGMENT(ns, m) \
  OPCORE_LIBRARY_BLOCK_(FRAGMENT, ns, std::nullopt, m, OPCORE_UID(opcore_library_fragment_))
// Kernels of namespace `ns` for dispatch key `k` (CPU, CUDA, CompositeImplicitAutograd, ...).
#define OPCORE_LIBRARY_IMPL(ns, k, m) \
  OPCORE_LIBRARY_BLOCK_(IMPL, ns, ::opcore::DispatchKey::k, m, OPCORE_UID(opcore_library_impl_))
