// IValue: one boxed argument or result of the dispatcher's boxed calling convention (like
// c10::IValue). The boxed path pushes the arguments onto a Stack and a kernel pops them:
//   Stack stack;
//   stack.emplace_back(self);  stack.emplace_back(IntArrayRef{0, 1});  stack.emplace_back(true);
//   bool keepdim = stack.back().toBool();  IntArrayRef dims = stack[1].toIntList();
#pragma once

#include <opcore/core/ArrayRef.h>
#include <opcore/core/Device.h>
#include <opcore/core/Dimname.h>
#include <opcore/core/Generator.h>
#include <opcore/core/IntrusivePtr.h>
#include <opcore/core/Layout.h>
#include <opcore/core/Macros.h>
#include <opcore/core/MemoryFormat.h>
#include <opcore/core/OptionalArrayRef.h>
#include <opcore/core/QScheme.h>
#include <opcore/core/Scalar.h>
#include <opcore/core/ScalarType.h>
#include <opcore/core/Storage.h>
#include <opcore/core/Stream.h>
#include <opcore/core/TensorBase.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace opcore {

class IValue;

namespace detail {

// The shared, immutable heap part of a String, list or Tuple IValue. See Note [IValue layout].
struct IValueHeap : IntrusiveTarget {};

template <typename T>
struct IValueHeapOf final : IValueHeap {
  explicit IValueHeapOf(T v) : value(std::move(v)) {}
  const T value;
};

// Element types boxed one IValue per element in a GenericList: everything but numbers,
// bools and tensors, which have list tags of their own (Tensor?[] elements are optionals).
template <typename T>
constexpr bool kIsGenericListElement = !std::is_arithmetic_v<T> && !std::is_base_of_v<TensorBase, T> &&
                                       !std::is_same_v<T, IValue>;

}  // namespace detail

// Note [IValue layout]
// An IValue is 16 bytes: an 8-byte union and a one-byte tag. Numbers, bools and the small
// enum-like values (ScalarType, Device, Layout, MemoryFormat, QScheme, Dimname, Stream) live in the
// union itself. A Tensor is a TensorBase (one intrusive pointer)
// placement-constructed in the union, so storing, copying and destroying it adjust the
// TensorImpl's refcount exactly as a TensorBase would. Strings, lists and tuples live on the
// heap in a detail::IValueHeapOf<T>, held by an IntrusivePtr in the union: the payload is
// immutable, so copying an IValue shares it (one atomic increment, no allocation), and the
// views that toIntList(), toStringView(), ... return stay valid while any IValue holding that
// payload lives. A Storage or a Generator is its own intrusive object: the union holds a
// reference to the StorageImpl or GeneratorImpl itself (possibly null), through the same
// pointer type. The view accessors are deleted on rvalues, so keeping a view of a temporary
// (`IntArrayRef dims = std::move(stack.back()).toIntList();`) is a compile error rather than a
// dangling pointer; read views through an lvalue (`stack[i].toIntList()`).
// The tags are ordered by how the union is handled: plain values below Tensor, intrusive
// pointers above it, so copy, move and destruction need one or two comparisons, not a switch.
// Lists of anything else than ints, doubles, bools and tensors (Tensor?[], Dimname[], str[],
// Scalar[], ...) are GenericLists of one IValue per element.
//
// Note [Borrowed IValues]
// `IValue::borrow(t)` is a Tensor IValue that refers to `t` without a reference of its own:
// making, moving and destroying it touch no reference count. A caller that keeps `t` alive
// for the call can push its arguments that way, and a boxed call of an unboxed kernel then
// makes no atomic reference-count update for them (an owning push makes two: the copy, and
// the release when the adapter pops it). The rules that keep it safe:
//   - a borrowed IValue is valid while `t`'s tensor is: push it for one call, then pop it;
//   - copying one gives an owning IValue, and so do toTensorBase() && and own(); moving one
//     moves the borrow (the stack may reallocate without touching reference counts);
//   - a list or tuple never holds one: IValue::list() and IValue::tuple() make borrowed
//     elements owning, so that the dispatcher's owning of a boxed kernel's arguments (below)
//     covers what they contain (a kernel may keep a list it is given);
//   - kernels never keep one: the adapter of an unboxed kernel binds each tensor argument,
//     borrowed or not, to its `const Tensor&` parameter without a reference (the entry stays
//     on the stack until the kernel returns; a `Tensor&` parameter, which the kernel may
//     assign to, gets a reference of its own), and the dispatcher makes a boxed kernel's
//     borrowed arguments owning before it calls the kernel, so a boxed kernel may store or
//     move anything it is given (see detail::ownBorrowedArguments).
// Only tensors are borrowed: they are what every operator call passes and the only
// arguments whose references a hot caller keeps anyway.
class IValue {
 public:
  enum class Tag : uint8_t {
    // Plain values (copied bitwise).
    None,
    Int,
    Double,
    Bool,
    ScalarType,
    Device,
    Layout,
    MemoryFormat,
    QScheme,
    Dimname,
    Stream,
    // A TensorBase, possibly undefined.
    Tensor,
    // Shared immutable heap payloads.
    String,
    ComplexDouble,
    IntList,
    DoubleList,
    BoolList,
    TensorList,
    GenericList,  // a list of IValues, e.g. for `Tensor?[]`
    Tuple,
    // Intrusive objects shared with their C++ handles, possibly null.
    Storage,
    Generator,
  };


  // --- construction: implicit, so that `stack.emplace_back(arg)` works for every argument ---
  IValue() noexcept : tag_(Tag::None) {}
  IValue(std::nullopt_t) noexcept : IValue() {}  // NOLINT: implicit by design

  // The generated opcore::Tensor derives from TensorBase and converts through these.
  IValue(const TensorBase& t) : tag_(Tag::Tensor) {  // NOLINT: implicit by design
    new (&payload_.as_tensor) TensorBase(t);
  }
  IValue(TensorBase&& t) noexcept : tag_(Tag::Tensor) {  // NOLINT: implicit by design
    new (&payload_.as_tensor) TensorBase(std::move(t));
  }
  // The tensor `t`, without a reference: see Note [Borrowed IValues].
  //   stack.push_back(IValue::borrow(self));  op.callBoxed(stack);
  static IValue borrow(const TensorBase& t) noexcept {
    IValue v;
    v.tag_ = Tag::Tensor;
    v.borrowed_ = true;
    new (&v.payload_.as_tensor) TensorBase(TensorBase::unsafeBorrow(t));
    return v;
  }

  // Every integral type but bool is an Int; unsigned values must fit in int64_t.
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  IValue(T v) : tag_(Tag::Int) {  // NOLINT: implicit by design
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
      if (OPCORE_UNLIKELY(v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
        reportIntOverflow(static_cast<uint64_t>(v));
      }
    }
    payload_.u.as_int = static_cast<int64_t>(v);
  }
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  IValue(T v) : tag_(Tag::Double) {  // NOLINT: implicit by design
    payload_.u.as_double = static_cast<double>(v);
  }
  // A template, so that pointers and string literals (which convert to bool) do not match.
  template <typename T, std::enable_if_t<std::is_same_v<T, bool>, int> = 0>
  IValue(T v) : tag_(Tag::Bool) {  // NOLINT: implicit by design
    payload_.u.as_bool = v;
  }

  IValue(complex<double> z) : IValue(Tag::ComplexDouble, z) {}                     // NOLINT
  IValue(std::string s) : IValue(Tag::String, std::move(s)) {}                     // NOLINT
  IValue(std::string_view s) : IValue(Tag::String, std::string(s)) {}              // NOLINT
  IValue(const char* s) : IValue(std::string_view(checkCString(s))) {}             // NOLINT
  IValue(std::nullptr_t) = delete;  // neither a string nor None: say which you mean
  // Other pointers would convert to bool; reject them rather than store a BoolList or Bool.
  template <typename T, std::enable_if_t<!std::is_same_v<std::remove_cv_t<T>, char>, int> = 0>
  IValue(T*) = delete;

  IValue(ScalarType t) : tag_(Tag::ScalarType) { payload_.u.as_scalar_type = t; }  // NOLINT
  IValue(Device d) : tag_(Tag::Device) { payload_.u.as_device = d; }               // NOLINT
  IValue(Layout l) : tag_(Tag::Layout) { payload_.u.as_layout = l; }               // NOLINT
  IValue(MemoryFormat f) : tag_(Tag::MemoryFormat) { payload_.u.as_memory_format = f; }  // NOLINT
  IValue(QScheme q) : tag_(Tag::QScheme) { payload_.u.as_qscheme = q; }           // NOLINT
  IValue(Dimname n) : tag_(Tag::Dimname) { new (&payload_.u.as_dimname) Dimname(n); }  // NOLINT
  IValue(Stream s) : tag_(Tag::Stream) { new (&payload_.u.as_stream) Stream(s); }       // NOLINT
  // A reference to the storage or generator itself (not a copy of it); null ones included.
  IValue(const Storage& s) : tag_(Tag::Storage) { new (&payload_.as_heap) HeapPtr(s.get()); }  // NOLINT
  IValue(const Generator& g) : tag_(Tag::Generator) {  // NOLINT: implicit by design
    new (&payload_.as_heap) HeapPtr(g.get());
  }

  // Int, Double, Bool or ComplexDouble, keeping the Scalar's kind.
  IValue(const Scalar& s) : IValue() {  // NOLINT: implicit by design
    if (s.isComplex()) {
      *this = IValue(s.toComplexDouble());
    } else if (s.isFloatingPoint()) {
      *this = IValue(s.toDouble());
    } else if (s.isBoolean()) {
      *this = IValue(s.toBool());
    } else {
      *this = IValue(s.toLong());
    }
  }

  IValue(std::vector<int64_t> v) : IValue(Tag::IntList, std::move(v)) {}          // NOLINT
  IValue(ArrayRef<int64_t> v) : IValue(Tag::IntList, v.vec()) {}                  // NOLINT
  IValue(std::vector<double> v) : IValue(Tag::DoubleList, std::move(v)) {}        // NOLINT
  IValue(ArrayRef<double> v) : IValue(Tag::DoubleList, v.vec()) {}                // NOLINT
  IValue(std::vector<bool> v) : IValue(Tag::BoolList, std::move(v)) {}            // NOLINT
  IValue(ArrayRef<bool> v)                                                        // NOLINT
      : IValue(Tag::BoolList, std::vector<bool>(v.begin(), v.end())) {}
  template <size_t N>
  IValue(const std::array<bool, N>& v)  // NOLINT: implicit by design (`bool[3]`)
      : IValue(Tag::BoolList, std::vector<bool>(v.begin(), v.end())) {}

  // Tensor lists, of TensorBase or of any type derived from it (opcore::Tensor).
  IValue(std::vector<TensorBase> v) : IValue(Tag::TensorList, std::move(v)) {}    // NOLINT
  template <typename T, std::enable_if_t<std::is_base_of_v<TensorBase, T>, int> = 0>
  IValue(ArrayRef<T> v)  // NOLINT: implicit by design
      : IValue(Tag::TensorList, std::vector<TensorBase>(v.begin(), v.end())) {}
  template <typename T,
            std::enable_if_t<std::is_base_of_v<TensorBase, T> && !std::is_same_v<T, TensorBase>, int> = 0>
  IValue(const std::vector<T>& v) : IValue(ArrayRef<T>(v)) {}  // NOLINT: implicit by design

  // Every other list is a GenericList of one IValue per element: Tensor?[], Dimname[],
  // str[], Scalar[], ... (See Note [IValue layout].)
  template <typename T, std::enable_if_t<detail::kIsGenericListElement<T>, int> = 0>
  IValue(ArrayRef<T> v) : IValue(Tag::GenericList, std::vector<IValue>(v.begin(), v.end())) {}  // NOLINT
  template <typename T, std::enable_if_t<detail::kIsGenericListElement<T>, int> = 0>
  IValue(const std::vector<T>& v) : IValue(ArrayRef<T>(v)) {}  // NOLINT: implicit by design

  // None, or the IValue of the value.
  template <typename T>
  IValue(const std::optional<T>& v) : IValue() {  // NOLINT: implicit by design
    if (v.has_value()) *this = IValue(*v);
  }
  template <typename T>
  IValue(std::optional<T>&& v) : IValue() {  // NOLINT: implicit by design
    if (v.has_value()) *this = IValue(std::move(*v));
  }
  template <typename T>
  IValue(const OptionalArrayRef<T>& v) : IValue() {  // NOLINT: implicit by design
    if (v.has_value()) *this = IValue(*v);
  }

  // A GenericList (`Tensor?[]`, lists of lists) and a Tuple (several results):
  //   IValue::list({IValue(t), IValue()});  IValue::tuple({IValue(a), IValue(b)});
  // Borrowed elements are made owning (Note [Borrowed IValues]): only stack entries borrow.
  static IValue list(std::vector<IValue> values) { return IValue(Tag::GenericList, ownAll(std::move(values))); }
  static IValue tuple(std::vector<IValue> values) { return IValue(Tag::Tuple, ownAll(std::move(values))); }

  // --- copy, move, destruction: see Note [IValue layout] ---
  IValue(const IValue& o) : tag_(o.tag_) {
    if (o.tag_ == Tag::Tensor) {
      new (&payload_.as_tensor) TensorBase(o.payload_.as_tensor);
    } else if (o.tag_ > Tag::Tensor) {
      new (&payload_.as_heap) HeapPtr(o.payload_.as_heap);
    } else {
      payload_.u = o.payload_.u;
    }
  }
  // The moved-from IValue is None. A borrowed IValue moves its borrow.
  IValue(IValue&& o) noexcept : tag_(o.tag_) { moveFrom(o); }
  IValue& operator=(IValue&& o) noexcept {
    if (this != &o) {
      destroy();
      tag_ = o.tag_;
      moveFrom(o);
    }
    return *this;
  }
  // Copies first, so that assigning a value reached through this IValue's own payload works.
  IValue& operator=(const IValue& o) { return *this = IValue(o); }
  ~IValue() { destroy(); }

  // --- queries ---
  Tag tag() const { return tag_; }
  // A Tensor made by borrow() (or moved from one) that has not been made owning since.
  bool isBorrowed() const { return borrowed_; }
  // Makes a borrowed IValue owning (one reference-count increment); others are left alone.
  void own() {
    if (borrowed_) {
      borrowed_ = false;
      TensorBase owned(payload_.as_tensor);
      payload_.as_tensor.unsafeForgetBorrow();
      payload_.as_tensor = std::move(owned);
    }
  }
  // "None", "Tensor", "Int", ...: the enumerator name.
  const char* tagName() const { return tagName(tag_); }
  static const char* tagName(Tag t);

  bool isNone() const { return tag_ == Tag::None; }
  bool isTensor() const { return tag_ == Tag::Tensor; }
  bool isInt() const { return tag_ == Tag::Int; }
  bool isDouble() const { return tag_ == Tag::Double; }
  bool isBool() const { return tag_ == Tag::Bool; }
  bool isString() const { return tag_ == Tag::String; }
  bool isComplexDouble() const { return tag_ == Tag::ComplexDouble; }
  // Int, Double, Bool or ComplexDouble: what toScalar() accepts.
  bool isScalar() const {
    return tag_ == Tag::Int || tag_ == Tag::Double || tag_ == Tag::Bool || tag_ == Tag::ComplexDouble;
  }
  bool isScalarType() const { return tag_ == Tag::ScalarType; }
  bool isDevice() const { return tag_ == Tag::Device; }
  bool isLayout() const { return tag_ == Tag::Layout; }
  bool isMemoryFormat() const { return tag_ == Tag::MemoryFormat; }
  bool isQScheme() const { return tag_ == Tag::QScheme; }
  bool isDimname() const { return tag_ == Tag::Dimname; }
  bool isStream() const { return tag_ == Tag::Stream; }
  bool isStorage() const { return tag_ == Tag::Storage; }
  bool isGenerator() const { return tag_ == Tag::Generator; }
  bool isIntList() const { return tag_ == Tag::IntList; }
  bool isDoubleList() const { return tag_ == Tag::DoubleList; }
  bool isBoolList() const { return tag_ == Tag::BoolList; }
  bool isTensorList() const { return tag_ == Tag::TensorList; }
  bool isGenericList() const { return tag_ == Tag::GenericList; }
  bool isTuple() const { return tag_ == Tag::Tuple; }

  // --- accessors: each throws opcore::Error ("IValue: expected Int but got Tensor") on
  // another tag. Views (ArrayRef, string_view) point into the shared payload: they stay valid
  // while an IValue holding it lives. ---
  const TensorBase& toTensorBase() const& {
    if (OPCORE_UNLIKELY(tag_ != Tag::Tensor)) reportWrongTag(Tag::Tensor);
    return payload_.as_tensor;
  }
  // Moves the tensor out (a borrowed one is copied: the result always owns a reference);
  // this IValue becomes None.
  TensorBase toTensorBase() && {
    if (OPCORE_UNLIKELY(tag_ != Tag::Tensor)) reportWrongTag(Tag::Tensor);
    own();
    TensorBase t = std::move(payload_.as_tensor);
    destroy();
    tag_ = Tag::None;
    new (&payload_.u) Trivial();
    return t;
  }
  int64_t toInt() const {
    if (OPCORE_UNLIKELY(tag_ != Tag::Int)) reportWrongTag(Tag::Int);
    return payload_.u.as_int;
  }
  double toDouble() const {
    if (OPCORE_UNLIKELY(tag_ != Tag::Double)) reportWrongTag(Tag::Double);
    return payload_.u.as_double;
  }
  bool toBool() const {
    if (OPCORE_UNLIKELY(tag_ != Tag::Bool)) reportWrongTag(Tag::Bool);
    return payload_.u.as_bool;
  }
  complex<double> toComplexDouble() const { return heapValue<complex<double>>(Tag::ComplexDouble); }
  // From Int, Double, Bool or ComplexDouble, keeping the kind.
  Scalar toScalar() const {
    switch (tag_) {
      case Tag::Int: return Scalar(payload_.u.as_int);
      case Tag::Double: return Scalar(payload_.u.as_double);
      case Tag::Bool: return Scalar(payload_.u.as_bool);
      case Tag::ComplexDouble: return Scalar(toComplexDouble());
      default: reportWrongScalar();
    }
  }
  // From a ScalarType, or from an Int holding a valid ScalarType value (0 = Byte, ..., 11 = Bool).
  ScalarType toScalarType() const {
    if (OPCORE_LIKELY(tag_ == Tag::ScalarType)) return payload_.u.as_scalar_type;
    return scalarTypeFromInt();
  }
  Device toDevice() const {
    if (OPCORE_UNLIKELY(tag_ != Tag::Device)) reportWrongTag(Tag::Device);
    return payload_.u.as_device;
  }
  // Like toScalarType(), these also accept an Int holding a valid enumerator value.
  Layout toLayout() const {
    if (OPCORE_LIKELY(tag_ == Tag::Layout)) return payload_.u.as_layout;
    return static_cast<Layout>(enumFromInt(Tag::Layout, kNumLayouts));
  }
  MemoryFormat toMemoryFormat() const {
    if (OPCORE_LIKELY(tag_ == Tag::MemoryFormat)) return payload_.u.as_memory_format;
    return static_cast<MemoryFormat>(enumFromInt(Tag::MemoryFormat, kNumMemoryFormats));
  }
  QScheme toQScheme() const {
    if (OPCORE_LIKELY(tag_ == Tag::QScheme)) return payload_.u.as_qscheme;
    return static_cast<QScheme>(enumFromInt(Tag::QScheme, kNumQSchemes));
  }
  Dimname toDimname() const {
    if (OPCORE_UNLIKELY(tag_ != Tag::Dimname)) reportWrongTag(Tag::Dimname);
    return payload_.u.as_dimname;
  }
  Stream toStream() const {
    if (OPCORE_UNLIKELY(tag_ != Tag::Stream)) reportWrongTag(Tag::Stream);
    return payload_.u.as_stream;
  }
  // A new handle to the same storage / generator (one reference-count increment).
  Storage toStorage() const {
    if (OPCORE_UNLIKELY(tag_ != Tag::Storage)) reportWrongTag(Tag::Storage);
    return Storage(static_cast<StorageImpl*>(payload_.as_heap.get()));
  }
  Generator toGenerator() const {
    if (OPCORE_UNLIKELY(tag_ != Tag::Generator)) reportWrongTag(Tag::Generator);
    return Generator(IntrusivePtr<GeneratorImpl>(static_cast<GeneratorImpl*>(payload_.as_heap.get())));
  }
  std::string_view toStringView() const& { return heapValue<std::string>(Tag::String); }
  ArrayRef<int64_t> toIntList() const& { return heapValue<std::vector<int64_t>>(Tag::IntList); }
  ArrayRef<double> toDoubleList() const& { return heapValue<std::vector<double>>(Tag::DoubleList); }
  // A copy: std::vector<bool> has no contiguous bool array to view.
  std::vector<bool> toBoolList() const { return heapValue<std::vector<bool>>(Tag::BoolList); }
  ArrayRef<TensorBase> toTensorList() const& {
    return heapValue<std::vector<TensorBase>>(Tag::TensorList);
  }
  ArrayRef<IValue> toGenericList() const& { return heapValue<std::vector<IValue>>(Tag::GenericList); }
  ArrayRef<IValue> toTuple() const& { return heapValue<std::vector<IValue>>(Tag::Tuple); }
  // Views of a temporary would dangle; see Note [IValue layout].
  std::string_view toStringView() && = delete;
  ArrayRef<int64_t> toIntList() && = delete;
  ArrayRef<double> toDoubleList() && = delete;
  ArrayRef<TensorBase> toTensorList() && = delete;
  ArrayRef<IValue> toGenericList() && = delete;
  ArrayRef<IValue> toTuple() && = delete;

 private:
  // Points at a detail::IValueHeap for String ... Tuple, at the StorageImpl or GeneratorImpl
  // for Storage and Generator.
  using HeapPtr = IntrusivePtr<IntrusiveTarget>;

  // The plain values; trivially copyable, so one assignment copies any of them.
  union Trivial {
    Trivial() noexcept : as_int(0) {}
    int64_t as_int;
    double as_double;
    bool as_bool;
    opcore::ScalarType as_scalar_type;
    opcore::Device as_device;
    opcore::Layout as_layout;
    opcore::MemoryFormat as_memory_format;
    opcore::QScheme as_qscheme;
    opcore::Dimname as_dimname;
    opcore::Stream as_stream;
  };
  union Payload {
    Payload() noexcept : u() {}
    ~Payload() {}  // IValue destroys the active member
    Trivial u;
    TensorBase as_tensor;
    HeapPtr as_heap;
  };
  static_assert(std::is_trivially_copyable_v<Trivial>);
  static_assert(sizeof(TensorBase) == 8 && sizeof(HeapPtr) == 8 && sizeof(Trivial) == 8);

  template <typename T>
  IValue(Tag tag, T value) : tag_(tag) {
    new (&payload_.as_heap) HeapPtr(static_cast<detail::IValueHeap*>(new detail::IValueHeapOf<T>(std::move(value))));
  }

  static std::vector<IValue> ownAll(std::vector<IValue> values) {
    for (IValue& v : values) v.own();
    return values;
  }

  template <typename T>
  const T& heapValue(Tag expected) const {
    if (OPCORE_UNLIKELY(tag_ != expected)) reportWrongTag(expected);
    return static_cast<const detail::IValueHeapOf<T>&>(*payload_.as_heap).value;
  }

  // Precondition: this IValue's payload holds no object (freshly constructed or destroyed)
  // and tag_ == o.tag_. Leaves `o` None. A borrow moves bitwise, as an owned tensor does.
  void moveFrom(IValue& o) noexcept {
    borrowed_ = std::exchange(o.borrowed_, false);
    if (o.tag_ == Tag::Tensor) {
      new (&payload_.as_tensor) TensorBase(std::move(o.payload_.as_tensor));
      o.payload_.as_tensor.~TensorBase();
      new (&o.payload_.u) Trivial();
    } else if (o.tag_ > Tag::Tensor) {
      new (&payload_.as_heap) HeapPtr(std::move(o.payload_.as_heap));
      o.payload_.as_heap.~HeapPtr();
      new (&o.payload_.u) Trivial();
    } else {
      new (&payload_.u) Trivial(o.payload_.u);
    }
    o.tag_ = Tag::None;
  }
  // Ends the payload's lifetime (releasing a tensor or heap reference, unless borrowed);
  // tag_ and borrowed_ are left stale.
  void destroy() noexcept {
    if (tag_ == Tag::Tensor) {
      if (borrowed_) payload_.as_tensor.unsafeForgetBorrow();
      payload_.as_tensor.~TensorBase();
    } else if (tag_ > Tag::Tensor) {
      payload_.as_heap.~HeapPtr();
    }
  }

  // Cold paths, in IValue.cpp.
  [[noreturn]] OPCORE_NOINLINE void reportWrongTag(Tag expected) const;
  [[noreturn]] OPCORE_NOINLINE void reportWrongScalar() const;
  [[noreturn]] OPCORE_NOINLINE static void reportIntOverflow(uint64_t v);
  OPCORE_NOINLINE ScalarType scalarTypeFromInt() const;
  // The Int's value when it is in [0, count), for an accessor of `expected`; throws otherwise.
  OPCORE_NOINLINE int64_t enumFromInt(Tag expected, int count) const;
  static const char* checkCString(const char* s);

  Payload payload_;
  Tag tag_;
  bool borrowed_ = false;  // Note [Borrowed IValues]; only ever true with Tag::Tensor
};

static_assert(sizeof(IValue) == 16, "IValue must stay 16 bytes; see Note [IValue layout]");

// The boxed calling convention's argument and result stack.
using Stack = std::vector<IValue>;

// Same tag and equal values. Tensors compare by identity (the same TensorImpl, like
// TensorBase::is_same), lists and tuples element-wise, doubles with IEEE == (NaN != NaN).
bool operator==(const IValue& a, const IValue& b);

// Python-like text: None, 3, 2.5, True, "abc", Float, cpu, [1, 2], (a, b),
// Tensor(sizes=[2, 3], dtype=Float, device=cpu), Tensor(undefined); Strided, ChannelsLast,
// N (a Dimname), stream 0 on cpu, Storage(nbytes=8, device=cpu), Generator(device=cpu, ...).
std::ostream& operator<<(std::ostream& os, const IValue& v);
std::ostream& operator<<(std::ostream& os, IValue::Tag t);

}  // namespace opcore
