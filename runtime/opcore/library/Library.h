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

namespace detail {
class LibraryInit;
}  // namespace detail

class Library {
 public:
  enum Kind {
    DEF,       // OPCORE_LIBRARY: claims the namespace, may def() and impl()
    FRAGMENT,  // OPCORE_LIBRARY_FRAGMENT: more defs for a namespace claimed elsewhere
    IMPL,      // OPCORE_LIBRARY_IMPL: impl() only, for one dispatch key
  };

  Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, uint32_t line);
  // For bindings (opcore.library): `site` names where the library was made ("model.py:12").
  Library(Kind kind, std::string ns, std::optional<DispatchKey> key, std::string site);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  Library(Library&&) = default;
  Library& operator=(Library&&) = default;

  // Defines an operator from its schema ("scale(Tensor self, float factor) -> Tensor").
  // `tags` are tags.yaml names ("pointwise"), read back by OperatorHandle::tags().
  Library& def(const char* schema, std::vector<std::string> tags = {});
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

  // For bindings whose registrations each come from their own place (opcore.library: the
  // Python caller's file:line): the same registrations, with that site.
  Library& def(const char* schema, std::vector<std::string> tags, const std::string& site);
  Library& impl(const char* name, std::optional<DispatchKey> key, KernelFunction kernel, const std::string& site);
  Library& fallback(DispatchKey key, KernelFunction kernel, const std::string& site);

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
  Library& implKernel(const char* name, KernelFunction kernel, std::optional<DispatchKey> key) {
    return impl(name, key, std::move(kernel), site_);
  }
  void defInferred(const char* name, const std::optional<std::string>& inferred);
  // "registered at file.cpp:42"
  std::string debug(const std::string& site) const { return "registered at " + site; }

  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string site_;  // "file.cpp:42", where the library was made
  std::vector<RegistrationHandleRAII> registrations_;
};

// Note [Loading an operator library]
// A registration block that throws during static initialisation cannot be caught by anyone:
// by default it prints the block's location and the error, then aborts (rather than an
// anonymous std::terminate). A loader that dlopen()s a library inside a LibraryLoadScope
// gets the error instead: the failing block registers nothing, the loader reads error() and
// dlclose()s the library, which destroys the other blocks' Libraries, so the registry is left
// as it was (opcore.ops.load_library does this).
class LibraryLoadScope {
 public:
  LibraryLoadScope();
  ~LibraryLoadScope();
  LibraryLoadScope(const LibraryLoadScope&) = delete;
  LibraryLoadScope& operator=(const LibraryLoadScope&) = delete;
  // The first failure while the scope lived ("the registration block at f.cpp:3 failed: ..."),
  // or empty.
  const std::string& error() const { return error_; }

 private:
  friend class detail::LibraryInit;
  std::string error_;
  LibraryLoadScope* previous_;
};

namespace detail {
// Runs a library's init function during static initialisation and owns the Library
// (Note [Loading an operator library]).
class LibraryInit {
 public:
  LibraryInit(Library::Kind kind, void (*init)(Library&), const char* ns,
              std::optional<DispatchKey> key, const char* file, uint32_t line);

 private:
  std::optional<Library> lib_;
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
