// Tests of IValue, the boxed value of the boxed calling convention: every constructor's tag
// and accessor, wrong-tag errors, refcounts of tensors and shared payloads, moves, printing
// and equality.
#include <opcore/Tensor.h>
#include <opcore/core/Empty.h>
#include <opcore/core/IValue.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace opcore {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Tag = IValue::Tag;

TensorBase cpuTensor(IntArrayRef sizes, ScalarType dtype = ScalarType::Float) {
  return detail::emptyCpu(sizes, dtype);
}

std::string str(const IValue& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Copies out of an IValue's views. The views are deleted on rvalue IValues, so a test that
// reads a temporary binds it to these const& parameters, where it lives for the full expression.
std::string textOf(const IValue& v) { return std::string(v.toStringView()); }
std::vector<int64_t> intsOf(const IValue& v) { return v.toIntList().vec(); }
std::vector<double> doublesOf(const IValue& v) { return v.toDoubleList().vec(); }

// The message of the opcore::Error that `f` throws ("" and a test failure when none).
std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an opcore::Error";
  return "";
}

// --- compile-time properties -------------------------------------------------------------

static_assert(sizeof(IValue) == 16);
static_assert(std::is_nothrow_move_constructible_v<IValue>);
static_assert(std::is_nothrow_move_assignable_v<IValue>);
static_assert(std::is_nothrow_destructible_v<IValue>);
// Pointers convert to bool in C++; an IValue refuses them instead of becoming a Bool.
static_assert(!std::is_constructible_v<IValue, int*>);
static_assert(!std::is_constructible_v<IValue, const void*>);
static_assert(!std::is_constructible_v<IValue, std::nullptr_t>);
static_assert(std::is_constructible_v<IValue, char*>);
// Implicit conversions, as `stack.push_back(arg)` needs.
static_assert(std::is_convertible_v<const Tensor&, IValue>);
static_assert(std::is_convertible_v<Tensor&, IValue>);
static_assert(std::is_convertible_v<const Scalar&, IValue>);
static_assert(std::is_convertible_v<IntArrayRef, IValue>);
static_assert(std::is_convertible_v<OptionalIntArrayRef, IValue>);
static_assert(std::is_convertible_v<std::optional<ScalarType>, IValue>);
static_assert(std::is_convertible_v<TensorList, IValue>);
static_assert(std::is_convertible_v<std::nullopt_t, IValue>);
static_assert(std::is_convertible_v<Layout, IValue> && std::is_convertible_v<MemoryFormat, IValue>);
static_assert(std::is_convertible_v<QScheme, IValue>);
static_assert(std::is_convertible_v<Dimname, IValue> && std::is_convertible_v<Stream, IValue>);
static_assert(std::is_convertible_v<const Storage&, IValue> && std::is_convertible_v<const Generator&, IValue>);
static_assert(std::is_convertible_v<OptionalTensorList, IValue> && std::is_convertible_v<DimnameList, IValue>);
static_assert(std::is_convertible_v<std::array<bool, 3>, IValue>);
static_assert(std::is_convertible_v<std::vector<std::string>, IValue>);

// Views of a temporary IValue would dangle, so they do not compile.
template <typename V>
concept CanViewIntList = requires(V&& v) { std::forward<V>(v).toIntList(); };
template <typename V>
concept CanViewString = requires(V&& v) { std::forward<V>(v).toStringView(); };
static_assert(CanViewIntList<IValue&> && CanViewIntList<const IValue&>);
static_assert(!CanViewIntList<IValue&&> && !CanViewString<IValue&&>);

// --- construction, tag, accessor ---------------------------------------------------------

TEST(IValueTest, DefaultAndNulloptAreNone) {
  EXPECT_TRUE(IValue().isNone());
  EXPECT_TRUE(IValue(std::nullopt).isNone());
  EXPECT_EQ(IValue().tag(), Tag::None);
  EXPECT_STREQ(IValue().tagName(), "None");
}

TEST(IValueTest, EveryIntegralTypeButBoolIsAnInt) {
  EXPECT_EQ(IValue(3).toInt(), 3);
  EXPECT_EQ(IValue(int64_t{-5}).toInt(), -5);
  EXPECT_EQ(IValue(std::numeric_limits<int64_t>::max()).toInt(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(IValue(int8_t{-7}).toInt(), -7);
  EXPECT_EQ(IValue(uint8_t{200}).toInt(), 200);
  EXPECT_EQ(IValue(short{12}).toInt(), 12);
  EXPECT_EQ(IValue(size_t{42}).toInt(), 42);
  EXPECT_EQ(IValue(uint32_t{4000000000u}).toInt(), 4000000000);
  EXPECT_EQ(IValue(3).tag(), Tag::Int);
  EXPECT_STREQ(IValue(3).tagName(), "Int");
  EXPECT_TRUE(IValue(3).isScalar());
}

TEST(IValueTest, UnsignedValuesBeyondInt64AreAnError) {
  const uint64_t big = uint64_t{1} << 63;
  EXPECT_THAT(errorOf([&] { IValue v(big); }),
              HasSubstr("IValue: the unsigned value 9223372036854775808 does not fit in an Int"));
  EXPECT_EQ(IValue(big - 1).toInt(), std::numeric_limits<int64_t>::max());
}

TEST(IValueTest, FloatAndDoubleAreDoubles) {
  EXPECT_EQ(IValue(2.5).toDouble(), 2.5);
  EXPECT_EQ(IValue(0.25f).toDouble(), 0.25);
  EXPECT_EQ(IValue(0.25f).tag(), Tag::Double);
  EXPECT_TRUE(IValue(2.5).isDouble());
  EXPECT_TRUE(IValue(2.5).isScalar());
}

TEST(IValueTest, OnlyBoolIsABool) {
  EXPECT_TRUE(IValue(true).toBool());
  EXPECT_FALSE(IValue(false).toBool());
  EXPECT_EQ(IValue(true).tag(), Tag::Bool);
  EXPECT_TRUE(IValue(false).isScalar());
  // A string literal is a pointer that converts to bool; it must be a String.
  EXPECT_EQ(IValue("abc").tag(), Tag::String);
}

TEST(IValueTest, EveryStringTypeIsAString) {
  std::string s = "hello";
  char buf[] = "mutable";
  const char* cstr = "cstr";
  EXPECT_EQ(textOf(IValue(s)), "hello");
  EXPECT_EQ(textOf(IValue(std::string("moved"))), "moved");
  EXPECT_EQ(textOf(IValue(std::string_view("view"))), "view");
  EXPECT_EQ(textOf(IValue(cstr)), "cstr");
  EXPECT_EQ(textOf(IValue(buf)), "mutable");
  EXPECT_EQ(textOf(IValue("")), "");
  EXPECT_TRUE(IValue("x").isString());
  EXPECT_FALSE(IValue("x").isScalar());
  const char* null_str = nullptr;
  EXPECT_THAT(errorOf([&] { IValue v(null_str); }),
              HasSubstr("IValue: cannot make a String from a null const char*"));
}

TEST(IValueTest, ScalarTypeAndDeviceRoundTrip) {
  IValue dtype(ScalarType::Double);
  EXPECT_TRUE(dtype.isScalarType());
  EXPECT_EQ(dtype.tag(), Tag::ScalarType);
  EXPECT_EQ(dtype.toScalarType(), ScalarType::Double);

  IValue cuda(Device(DeviceType::CUDA, 1));
  EXPECT_TRUE(cuda.isDevice());
  EXPECT_EQ(cuda.toDevice(), Device(DeviceType::CUDA, 1));
  EXPECT_EQ(IValue(Device(DeviceType::Meta)).toDevice(), Device(DeviceType::Meta));
  EXPECT_EQ(IValue(Device(DeviceType::CPU)).tag(), Tag::Device);
}

TEST(IValueTest, ScalarTypeFromAnIntHoldingOne) {
  for (int i = 0; i < kNumScalarTypes; ++i) {
    EXPECT_EQ(IValue(i).toScalarType(), static_cast<ScalarType>(i)) << i;
  }
  EXPECT_THAT(errorOf([] { IValue(kNumScalarTypes).toScalarType(); }),
              HasSubstr("IValue: Int 16 is not a ScalarType (valid values are 0 to 15)"));
  EXPECT_THAT(errorOf([] { IValue(-1).toScalarType(); }), HasSubstr("IValue: Int -1 is not a ScalarType"));
  EXPECT_THAT(errorOf([] { IValue(1.0).toScalarType(); }),
              HasSubstr("IValue: expected ScalarType but got Double"));
}

TEST(IValueTest, ScalarRoundTripKeepsTheKind) {
  IValue i{Scalar(7)};
  IValue d{Scalar(2.5)};
  IValue b{Scalar(true)};
  EXPECT_EQ(i.tag(), Tag::Int);
  EXPECT_EQ(d.tag(), Tag::Double);
  EXPECT_EQ(b.tag(), Tag::Bool);
  EXPECT_EQ(i.toInt(), 7);
  EXPECT_EQ(d.toDouble(), 2.5);
  EXPECT_TRUE(b.toBool());

  EXPECT_EQ(i.toScalar().type(), ScalarType::Long);
  EXPECT_EQ(i.toScalar().toLong(), 7);
  EXPECT_EQ(d.toScalar().type(), ScalarType::Double);
  EXPECT_EQ(d.toScalar().toDouble(), 2.5);
  EXPECT_EQ(b.toScalar().type(), ScalarType::Bool);
  EXPECT_TRUE(b.toScalar().toBool());
  // Round trip through an IValue again.
  EXPECT_EQ(IValue(d.toScalar()), d);
  EXPECT_EQ(IValue(Scalar(2.0)).tag(), Tag::Double);  // 2.0 stays a Double, not an Int
}

TEST(IValueTest, IntListFromArrayRefAndVector) {
  const std::vector<int64_t> sizes = {2, 3, 4};
  IValue from_ref{IntArrayRef(sizes)};
  IValue from_vec(sizes);
  IValue from_rvalue(std::vector<int64_t>{5});
  EXPECT_TRUE(from_ref.isIntList());
  EXPECT_EQ(from_ref.tag(), Tag::IntList);
  EXPECT_THAT(from_ref.toIntList().vec(), ElementsAre(2, 3, 4));
  EXPECT_THAT(from_vec.toIntList().vec(), ElementsAre(2, 3, 4));
  EXPECT_THAT(from_rvalue.toIntList().vec(), ElementsAre(5));
  // The IValue owns a copy: the view does not point into the source.
  EXPECT_NE(from_ref.toIntList().data(), sizes.data());
  EXPECT_TRUE(intsOf(IValue(IntArrayRef())).empty());
}

TEST(IValueTest, DoubleListFromArrayRefAndVector) {
  const std::vector<double> v = {0.5, -1.0};
  EXPECT_THAT(doublesOf(IValue(ArrayRef<double>(v))), ElementsAre(0.5, -1.0));
  EXPECT_THAT(doublesOf(IValue(v)), ElementsAre(0.5, -1.0));
  EXPECT_EQ(IValue(v).tag(), Tag::DoubleList);
  EXPECT_TRUE(IValue(v).isDoubleList());
}

TEST(IValueTest, BoolListFromVectorAndArrayRef) {
  const std::vector<bool> v = {true, false, true};
  EXPECT_EQ(IValue(v).tag(), Tag::BoolList);
  EXPECT_TRUE(IValue(v).isBoolList());
  EXPECT_THAT(IValue(v).toBoolList(), ElementsAre(true, false, true));
  const bool raw[] = {false, true};
  EXPECT_THAT(IValue(ArrayRef<bool>(raw, 2)).toBoolList(), ElementsAre(false, true));
}

TEST(IValueTest, TensorFromTensorBaseAndDerivedTensor) {
  TensorBase base = cpuTensor({2, 3});
  Tensor tensor = cpuTensor({4});
  const Tensor& const_ref = tensor;

  IValue from_base(base);
  IValue from_tensor(tensor);
  IValue from_const_ref(const_ref);
  EXPECT_EQ(from_base.tag(), Tag::Tensor);
  EXPECT_TRUE(from_tensor.isTensor());
  EXPECT_TRUE(from_base.toTensorBase().is_same(base));
  EXPECT_TRUE(from_tensor.toTensorBase().is_same(tensor));
  EXPECT_TRUE(from_const_ref.toTensorBase().is_same(tensor));
  EXPECT_THAT(from_tensor.toTensorBase().sizes().vec(), ElementsAre(4));

  // An rvalue Tensor moves its impl into the IValue.
  Tensor moved = cpuTensor({1});
  TensorImpl* impl = moved.unsafeGetTensorImpl();
  IValue from_rvalue(std::move(moved));
  EXPECT_FALSE(moved.defined());  // NOLINT(bugprone-use-after-move): checking the move
  EXPECT_EQ(from_rvalue.toTensorBase().unsafeGetTensorImpl(), impl);
  EXPECT_EQ(from_rvalue.toTensorBase().use_count(), 1u);

  // An undefined tensor is still a Tensor, not None.
  IValue undefined{TensorBase()};
  EXPECT_TRUE(undefined.isTensor());
  EXPECT_FALSE(undefined.toTensorBase().defined());
}

TEST(IValueTest, TensorListFromEveryTensorContainer) {
  Tensor a = cpuTensor({1});
  Tensor b = cpuTensor({2});
  const std::vector<Tensor> tensors = {a, b};
  const std::vector<TensorBase> bases = {a, b};
  const IValue values[] = {IValue(tensors), IValue(TensorList(tensors)), IValue(bases),
                           IValue(ArrayRef<TensorBase>(bases)), IValue(std::vector<TensorBase>{a, b})};
  for (const IValue& v : values) {
    EXPECT_EQ(v.tag(), Tag::TensorList);
    EXPECT_TRUE(v.isTensorList());
    ArrayRef<TensorBase> list = v.toTensorList();
    ASSERT_EQ(list.size(), 2u);
    EXPECT_TRUE(list[0].is_same(a));
    EXPECT_TRUE(list[1].is_same(b));
  }
}

TEST(IValueTest, OptionalOfEveryArgumentTypeIsNoneOrTheValue) {
  Tensor t = cpuTensor({2});
  const std::vector<int64_t> dims = {0, 1};

  EXPECT_TRUE(IValue(std::optional<Tensor>()).isNone());
  EXPECT_TRUE(IValue(std::optional<Tensor>(t)).toTensorBase().is_same(t));
  EXPECT_TRUE(IValue(std::optional<int64_t>()).isNone());
  EXPECT_EQ(IValue(std::optional<int64_t>(4)).toInt(), 4);
  EXPECT_TRUE(IValue(std::optional<double>()).isNone());
  EXPECT_EQ(IValue(std::optional<double>(1.5)).toDouble(), 1.5);
  EXPECT_TRUE(IValue(std::optional<bool>()).isNone());
  EXPECT_FALSE(IValue(std::optional<bool>(false)).toBool());
  EXPECT_TRUE(IValue(std::optional<Scalar>()).isNone());
  EXPECT_EQ(IValue(std::optional<Scalar>(Scalar(2.0))).tag(), Tag::Double);
  EXPECT_TRUE(IValue(std::optional<ScalarType>()).isNone());
  EXPECT_EQ(IValue(std::optional<ScalarType>(ScalarType::Long)).toScalarType(), ScalarType::Long);
  EXPECT_TRUE(IValue(std::optional<Device>()).isNone());
  EXPECT_EQ(IValue(std::optional<Device>(Device(DeviceType::Meta))).toDevice(), Device(DeviceType::Meta));
  EXPECT_TRUE(IValue(std::optional<std::string_view>()).isNone());
  EXPECT_EQ(textOf(IValue(std::optional<std::string_view>("mean"))), "mean");
  EXPECT_TRUE(IValue(std::optional<std::string>()).isNone());
  EXPECT_EQ(textOf(IValue(std::optional<std::string>("sum"))), "sum");
  EXPECT_TRUE(IValue(std::optional<IntArrayRef>()).isNone());
  EXPECT_THAT(intsOf(IValue(std::optional<IntArrayRef>(dims))), ElementsAre(0, 1));
  EXPECT_TRUE(IValue(OptionalIntArrayRef()).isNone());
  EXPECT_TRUE(IValue(OptionalIntArrayRef(std::nullopt)).isNone());
  EXPECT_THAT(intsOf(IValue(OptionalIntArrayRef(dims))), ElementsAre(0, 1));
  EXPECT_TRUE(IValue(std::optional<std::vector<Tensor>>()).isNone());
  {
    const IValue tensors{std::optional<std::vector<Tensor>>(std::vector<Tensor>{t})};
    ASSERT_EQ(tensors.toTensorList().size(), 1u);
    EXPECT_TRUE(tensors.toTensorList()[0].is_same(t));
  }

  // An lvalue optional is copied from, an rvalue one moved from.
  std::optional<Tensor> opt = t;
  EXPECT_EQ(t.use_count(), 2u);
  IValue copied(opt);
  EXPECT_EQ(t.use_count(), 3u);
  IValue moved(std::move(opt));
  EXPECT_EQ(t.use_count(), 3u);
  EXPECT_TRUE(moved.toTensorBase().is_same(t));
  EXPECT_TRUE(copied.toTensorBase().is_same(t));
}

TEST(IValueTest, GenericListAndTupleHoldIValues) {
  Tensor t = cpuTensor({2});
  IValue list = IValue::list({IValue(t), IValue(), IValue(3)});
  EXPECT_EQ(list.tag(), Tag::GenericList);
  EXPECT_TRUE(list.isGenericList());
  ArrayRef<IValue> items = list.toGenericList();
  ASSERT_EQ(items.size(), 3u);
  EXPECT_TRUE(items[0].toTensorBase().is_same(t));
  EXPECT_TRUE(items[1].isNone());
  EXPECT_EQ(items[2].toInt(), 3);

  IValue tuple = IValue::tuple({IValue(1.5), IValue("x"), list});
  EXPECT_EQ(tuple.tag(), Tag::Tuple);
  EXPECT_TRUE(tuple.isTuple());
  ArrayRef<IValue> fields = tuple.toTuple();
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[0].toDouble(), 1.5);
  EXPECT_EQ(fields[1].toStringView(), "x");
  EXPECT_EQ(fields[2].toGenericList().data(), items.data());  // nested, shared
  const IValue empty_list = IValue::list({});
  const IValue empty_tuple = IValue::tuple({});
  EXPECT_TRUE(empty_list.toGenericList().empty());
  EXPECT_TRUE(empty_tuple.toTuple().empty());
}

// --- the other schema types: Layout, MemoryFormat, Dimname, Stream, Storage, Generator ---

TEST(IValueTest, LayoutAndMemoryFormatRoundTripAndComeFromInts) {
  for (const Layout l : {Layout::Strided, Layout::Sparse, Layout::SparseCsr}) {
    const IValue v(l);
    EXPECT_EQ(v.tag(), Tag::Layout);
    EXPECT_TRUE(v.isLayout());
    EXPECT_EQ(v.toLayout(), l);
  }
  for (const MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast,
                               MemoryFormat::ChannelsLast3d}) {
    const IValue v(f);
    EXPECT_EQ(v.tag(), Tag::MemoryFormat);
    EXPECT_TRUE(v.isMemoryFormat());
    EXPECT_EQ(v.toMemoryFormat(), f);
  }
  // Like ScalarType, an Int holding a valid value converts (what a Python caller may pass).
  EXPECT_EQ(IValue(1).toLayout(), Layout::Sparse);
  EXPECT_EQ(IValue(2).toMemoryFormat(), MemoryFormat::ChannelsLast);
  EXPECT_THAT(errorOf([] { IValue(3).toLayout(); }), HasSubstr("IValue: Int 3 is not a Layout (valid values are 0 to 2)"));
  EXPECT_THAT(errorOf([] { IValue(-1).toMemoryFormat(); }),
              HasSubstr("IValue: Int -1 is not a MemoryFormat (valid values are 0 to 3)"));
  EXPECT_THAT(errorOf([] { IValue(1.0).toLayout(); }), HasSubstr("IValue: expected Layout but got Double"));
  EXPECT_THAT(errorOf([] { IValue(Layout::Strided).toMemoryFormat(); }),
              HasSubstr("IValue: expected MemoryFormat but got Layout"));
}

TEST(IValueTest, QSchemeRoundTripsAndComesFromInts) {
  for (const QScheme q : {QScheme::PerTensorAffine, QScheme::PerChannelAffine, QScheme::PerTensorSymmetric,
                          QScheme::PerChannelSymmetric, QScheme::PerChannelAffineFloatQParams}) {
    const IValue v(q);
    EXPECT_EQ(v.tag(), Tag::QScheme);
    EXPECT_TRUE(v.isQScheme());
    EXPECT_FALSE(v.isLayout());
    EXPECT_EQ(v.toQScheme(), q);
  }
  // PyTorch's values: an Int from a Python caller (torch.per_channel_symmetric is 3) converts.
  EXPECT_EQ(IValue(0).toQScheme(), QScheme::PerTensorAffine);
  EXPECT_EQ(IValue(3).toQScheme(), QScheme::PerChannelSymmetric);
  EXPECT_EQ(IValue(4).toQScheme(), QScheme::PerChannelAffineFloatQParams);
  EXPECT_THAT(errorOf([] { IValue(5).toQScheme(); }), HasSubstr("IValue: Int 5 is not a QScheme (valid values are 0 to 4)"));
  EXPECT_THAT(errorOf([] { IValue(Layout::Strided).toQScheme(); }), HasSubstr("IValue: expected QScheme but got Layout"));
  EXPECT_THAT(errorOf([] { IValue(QScheme::PerTensorAffine).toLayout(); }),
              HasSubstr("IValue: expected Layout but got QScheme"));
  // Copies and moves keep it; lists of it are GenericLists.
  IValue v(QScheme::PerChannelAffine);
  const IValue copy = v;
  const IValue moved = std::move(v);
  EXPECT_EQ(copy.toQScheme(), QScheme::PerChannelAffine);
  EXPECT_EQ(moved.toQScheme(), QScheme::PerChannelAffine);
  const IValue list(std::vector<QScheme>{QScheme::PerTensorSymmetric, QScheme::PerChannelSymmetric});
  EXPECT_EQ(list.tag(), Tag::GenericList);
  EXPECT_EQ(list.toGenericList()[1].toQScheme(), QScheme::PerChannelSymmetric);
}

TEST(IValueTest, DimnameAndStreamRoundTrip) {
  const Dimname n = Dimname::fromString("N");
  const IValue name(n);
  EXPECT_EQ(name.tag(), Tag::Dimname);
  EXPECT_TRUE(name.isDimname());
  EXPECT_EQ(name.toDimname(), n);
  EXPECT_EQ(name.toDimname().name(), "N");
  EXPECT_TRUE(IValue(Dimname::wildcard()).toDimname().isWildcard());

  const Stream s(Device(DeviceType::CUDA, 1), 7);
  const IValue stream(s);
  EXPECT_EQ(stream.tag(), Tag::Stream);
  EXPECT_TRUE(stream.isStream());
  EXPECT_EQ(stream.toStream(), s);
  EXPECT_EQ(stream.toStream().id, 7);
  EXPECT_THAT(errorOf([&] { name.toStream(); }), HasSubstr("IValue: expected Stream but got Dimname"));
  EXPECT_THAT(errorOf([&] { stream.toDimname(); }), HasSubstr("IValue: expected Dimname but got Stream"));
  EXPECT_THAT(errorOf([] { IValue("N").toDimname(); }), HasSubstr("IValue: expected Dimname but got String"));
}

TEST(IValueTest, StorageIsSharedNotCopied) {
  Tensor t = cpuTensor({3});
  const Storage& storage = t.storage();
  const size_t before = storage.use_count();
  {
    const IValue v(storage);
    EXPECT_EQ(v.tag(), Tag::Storage);
    EXPECT_TRUE(v.isStorage());
    EXPECT_EQ(storage.use_count(), before + 1);
    IValue copy = v;  // shares the StorageImpl: one more reference, no new storage
    EXPECT_EQ(storage.use_count(), before + 2);
    Storage back = copy.toStorage();
    EXPECT_EQ(back.get(), storage.get());
    EXPECT_EQ(back->nbytes(), 3 * sizeof(float));
    EXPECT_EQ(storage.use_count(), before + 3);
  }
  EXPECT_EQ(storage.use_count(), before);
  const IValue undefined{Storage()};
  EXPECT_TRUE(undefined.isStorage());
  EXPECT_FALSE(undefined.toStorage());
  EXPECT_THAT(errorOf([] { IValue(1).toStorage(); }), HasSubstr("IValue: expected Storage but got Int"));
}

TEST(IValueTest, GeneratorIsTheSameGenerator) {
  const Generator g = Generator::create(Device(DeviceType::CPU), 5);
  EXPECT_EQ(g.getIntrusivePtr().use_count(), 1u);
  IValue v(g);
  EXPECT_EQ(v.tag(), Tag::Generator);
  EXPECT_TRUE(v.isGenerator());
  EXPECT_EQ(g.getIntrusivePtr().use_count(), 2u);
  const Generator back = v.toGenerator();
  EXPECT_EQ(back, g);
  // Drawing through the unboxed handle moves the state the original sees.
  back.reserveBlocks(3);
  EXPECT_EQ(g.get_offset(), 3u);
  v = IValue();
  EXPECT_EQ(g.getIntrusivePtr().use_count(), 2u);  // g and back
  EXPECT_FALSE(IValue(Generator()).toGenerator().defined());
  EXPECT_TRUE(IValue(std::optional<Generator>()).isNone());
  EXPECT_EQ(IValue(std::optional<Generator>(g)).toGenerator(), g);
  EXPECT_THAT(errorOf([] { IValue().toGenerator(); }), HasSubstr("IValue: expected Generator but got None"));
}

TEST(IValueTest, OtherListsAreGenericListsOfOneIValuePerElement) {
  Tensor a = cpuTensor({2});
  const std::vector<std::optional<Tensor>> optional_tensors = {a, std::nullopt};
  const IValue indices{OptionalTensorList(optional_tensors)};
  ASSERT_TRUE(indices.isGenericList());
  ASSERT_EQ(indices.toGenericList().size(), 2u);
  EXPECT_TRUE(indices.toGenericList()[0].toTensorBase().is_same(a));
  EXPECT_TRUE(indices.toGenericList()[1].isNone());

  const std::vector<Dimname> names = {Dimname::fromString("N"), Dimname::wildcard()};
  EXPECT_EQ(str(IValue(DimnameList(names))), "[N, *]");
  EXPECT_EQ(str(IValue(std::vector<std::string>{"a", "b"})), "[\"a\", \"b\"]");
  EXPECT_EQ(str(IValue(std::vector<std::string_view>{"c"})), "[\"c\"]");
  EXPECT_EQ(str(IValue(std::vector<Scalar>{1, 2.5, true})), "[1, 2.5, True]");
  EXPECT_EQ(str(IValue(std::vector<Layout>{Layout::Strided})), "[Strided]");
  EXPECT_EQ(str(IValue(std::vector<std::optional<QScheme>>{QScheme::PerTensorAffine, std::nullopt})),
            "[PerTensorAffine, None]");
  EXPECT_EQ(str(IValue(std::vector<std::optional<int64_t>>{3, std::nullopt})), "[3, None]");
  EXPECT_EQ(str(IValue(OptionalArrayRef<Dimname>())), "None");
  EXPECT_EQ(str(IValue(std::array<bool, 3>{true, false, true})), "[True, False, True]");
  EXPECT_EQ(IValue(std::array<bool, 2>{true, false}).tag(), Tag::BoolList);
}

// --- errors ------------------------------------------------------------------------------

TEST(IValueTest, WrongTagAccessorsThrowNamingBothTags) {
  Tensor t = cpuTensor({1});
  const IValue tensor(t);
  const IValue integer(1);
  const IValue list = IValue::list({});
  const IValue tuple = IValue::tuple({});
  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"IValue: expected Int but got Tensor", [&] { tensor.toInt(); }},
      {"IValue: expected Double but got Tensor", [&] { tensor.toDouble(); }},
      {"IValue: expected Bool but got Tensor", [&] { tensor.toBool(); }},
      {"IValue: expected String but got Tensor", [&] { tensor.toStringView(); }},
      {"IValue: expected Scalar (Int, Double, Bool or ComplexDouble) but got Tensor", [&] { tensor.toScalar(); }},
      {"IValue: expected ScalarType but got Tensor", [&] { tensor.toScalarType(); }},
      {"IValue: expected Device but got Tensor", [&] { tensor.toDevice(); }},
      {"IValue: expected IntList but got Tensor", [&] { tensor.toIntList(); }},
      {"IValue: expected DoubleList but got Tensor", [&] { tensor.toDoubleList(); }},
      {"IValue: expected BoolList but got Tensor", [&] { tensor.toBoolList(); }},
      {"IValue: expected TensorList but got Tensor", [&] { tensor.toTensorList(); }},
      {"IValue: expected GenericList but got Tensor", [&] { tensor.toGenericList(); }},
      {"IValue: expected Tuple but got Tensor", [&] { tensor.toTuple(); }},
      {"IValue: expected Tensor but got Int", [&] { integer.toTensorBase(); }},
      {"IValue: expected Tensor but got Int", [&] { IValue(1).toTensorBase(); }},
      {"IValue: expected Tensor but got None", [&] { IValue().toTensorBase(); }},
      {"IValue: expected Int but got Double", [&] { IValue(1.0).toInt(); }},
      {"IValue: expected Double but got Int", [&] { integer.toDouble(); }},
      {"IValue: expected Bool but got Int", [&] { integer.toBool(); }},
      {"IValue: expected Int but got Bool", [&] { IValue(true).toInt(); }},
      {"IValue: expected Tuple but got GenericList", [&] { list.toTuple(); }},
      {"IValue: expected GenericList but got Tuple", [&] { tuple.toGenericList(); }},
      {"IValue: expected Scalar (Int, Double, Bool or ComplexDouble) but got None", [&] { IValue().toScalar(); }},
  };
  for (const auto& [message, call] : cases) {
    EXPECT_THAT(errorOf(call), HasSubstr(message));
  }
  // The failed rvalue toTensorBase() left its IValue alone.
  IValue kept(1);
  EXPECT_THROW(std::move(kept).toTensorBase(), Error);
  EXPECT_EQ(kept.toInt(), 1);  // NOLINT(bugprone-use-after-move): the move threw
}

// --- refcounts, sharing, moves -----------------------------------------------------------

TEST(IValueTest, TensorRefcountFollowsCopiesMovesAndDestruction) {
  Tensor t = cpuTensor({2, 2});
  ASSERT_EQ(t.use_count(), 1u);
  {
    IValue a(t);
    EXPECT_EQ(t.use_count(), 2u);
    {
      IValue b(a);  // copy
      EXPECT_EQ(t.use_count(), 3u);
      IValue c(std::move(b));  // move: no new reference
      EXPECT_EQ(t.use_count(), 3u);
      EXPECT_TRUE(b.isNone());  // NOLINT(bugprone-use-after-move): checking the move
      IValue d;
      d = c;  // copy assignment
      EXPECT_EQ(t.use_count(), 4u);
      d = std::move(c);  // move assignment over the same tensor releases d's old reference
      EXPECT_EQ(t.use_count(), 3u);
      d = IValue(5);  // assigning another kind releases the tensor
      EXPECT_EQ(t.use_count(), 2u);
    }
    EXPECT_EQ(t.use_count(), 2u);
    // Moving the tensor out transfers the reference and leaves None.
    TensorBase out = std::move(a).toTensorBase();
    EXPECT_EQ(t.use_count(), 2u);
    EXPECT_TRUE(a.isNone());  // NOLINT(bugprone-use-after-move): checking the move
    EXPECT_TRUE(out.is_same(t));
  }
  EXPECT_EQ(t.use_count(), 1u);
}

TEST(IValueTest, BorrowedTensorTakesNoReferenceUntilCopied) {
  Tensor t = cpuTensor({2});
  {
    IValue b = IValue::borrow(t);  // Note [Borrowed IValues]
    EXPECT_TRUE(b.isTensor());
    EXPECT_TRUE(b.isBorrowed());
    EXPECT_TRUE(b.toTensorBase().is_same(t));
    EXPECT_EQ(t.use_count(), 1u);
    EXPECT_EQ(b, IValue(t));  // the same tensor, borrowed or not
    EXPECT_THAT(str(b), HasSubstr("Tensor(sizes=[2]"));

    // Moving moves the borrow: still no reference, and the source is None.
    IValue moved(std::move(b));
    EXPECT_TRUE(moved.isBorrowed());
    EXPECT_FALSE(b.isBorrowed());  // NOLINT(bugprone-use-after-move): checking the move
    EXPECT_TRUE(b.isNone());       // NOLINT(bugprone-use-after-move): checking the move
    EXPECT_EQ(t.use_count(), 1u);
    IValue assigned;
    assigned = std::move(moved);
    EXPECT_TRUE(assigned.isBorrowed());
    EXPECT_EQ(t.use_count(), 1u);

    // A copy owns a reference, and the borrow is unchanged.
    IValue copy(assigned);
    EXPECT_FALSE(copy.isBorrowed());
    EXPECT_EQ(t.use_count(), 2u);
    IValue copy_assigned;
    copy_assigned = assigned;
    EXPECT_FALSE(copy_assigned.isBorrowed());
    EXPECT_EQ(t.use_count(), 3u);

    // Reallocating a stack of borrowed values moves them without references.
    Stack stack;
    for (int i = 0; i < 100; ++i) stack.push_back(IValue::borrow(t));
    EXPECT_EQ(t.use_count(), 3u);
    Stack stack_copy = stack;  // copies own
    EXPECT_EQ(t.use_count(), 103u);
    stack.clear();
    EXPECT_EQ(t.use_count(), 103u);
    stack_copy.clear();
    EXPECT_EQ(t.use_count(), 3u);

    // Assigning over a borrowed value, or destroying one, drops nothing.
    assigned = IValue(7);
    EXPECT_EQ(t.use_count(), 3u);
  }
  EXPECT_EQ(t.use_count(), 1u);
}

// Found by fuzz/fuzz_boxed_call (fuzz/regressions/fuzz_boxed_call/borrowed-list-element): a
// borrowed tensor moved into a list stayed borrowed inside it, out of reach of the owning the
// dispatcher does for a boxed kernel's arguments, so a kernel that kept the list kept a
// tensor without a reference.
TEST(IValueTest, ListsAndTuplesOwnTheirBorrowedElements) {
  Tensor t = cpuTensor({2});
  std::vector<IValue> elems;
  elems.push_back(IValue::borrow(t));
  elems.push_back(IValue::borrow(t));
  EXPECT_EQ(t.use_count(), 1u);
  IValue list = IValue::list(std::move(elems));
  EXPECT_FALSE(list.toGenericList()[0].isBorrowed());
  EXPECT_FALSE(list.toGenericList()[1].isBorrowed());
  EXPECT_EQ(t.use_count(), 3u);
  std::vector<IValue> fields;
  fields.push_back(IValue::borrow(t));
  IValue tuple = IValue::tuple(std::move(fields));
  EXPECT_FALSE(tuple.toTuple()[0].isBorrowed());
  EXPECT_EQ(t.use_count(), 4u);
  // They keep the tensor alive after its last handle goes.
  TensorImpl* impl = t.unsafeGetTensorImpl();
  t = Tensor();
  EXPECT_EQ(list.toGenericList()[1].toTensorBase().unsafeGetTensorImpl(), impl);
  EXPECT_EQ(tuple.toTuple()[0].toTensorBase().use_count(), 3u);
}

TEST(IValueTest, OwningABorrowedTensorTakesOneReference) {
  Tensor t = cpuTensor({2});
  IValue b = IValue::borrow(t);
  b.own();
  EXPECT_FALSE(b.isBorrowed());
  EXPECT_EQ(t.use_count(), 2u);
  b.own();  // already owning: nothing changes
  EXPECT_EQ(t.use_count(), 2u);

  // Taking the tensor out of a borrowed IValue gives an owning handle.
  IValue c = IValue::borrow(t);
  TensorBase out = std::move(c).toTensorBase();
  EXPECT_TRUE(c.isNone());       // NOLINT(bugprone-use-after-move): checking the move
  EXPECT_FALSE(c.isBorrowed());  // NOLINT(bugprone-use-after-move): checking the move
  EXPECT_EQ(t.use_count(), 3u);

  // The owning values keep the tensor alive after the original handle goes.
  TensorImpl* impl = t.unsafeGetTensorImpl();
  t = Tensor();
  EXPECT_EQ(b.toTensorBase().unsafeGetTensorImpl(), impl);
  EXPECT_EQ(out.use_count(), 2u);

  // Other values are never borrowed, and own() leaves them alone.
  IValue i(3);
  i.own();
  EXPECT_FALSE(i.isBorrowed());
  EXPECT_EQ(i.toInt(), 3);
}

TEST(IValueTest, StoredTensorOutlivesTheTensorItCameFrom) {
  IValue v;
  TensorImpl* impl = nullptr;
  {
    Tensor t = cpuTensor({3}, ScalarType::Long);
    impl = t.unsafeGetTensorImpl();
    t.data_ptr<int64_t>()[2] = 99;
    v = t;
  }
  const TensorBase& kept = v.toTensorBase();
  EXPECT_EQ(kept.unsafeGetTensorImpl(), impl);
  EXPECT_EQ(kept.use_count(), 1u);
  EXPECT_EQ(kept.data_ptr<int64_t>()[2], 99);
}

TEST(IValueTest, CopyingAListSharesItsPayload) {
  IValue ints(std::vector<int64_t>{1, 2, 3});
  IValue ints_copy = ints;
  EXPECT_EQ(ints_copy.toIntList().data(), ints.toIntList().data());

  IValue text("shared");
  IValue text_copy = text;
  EXPECT_EQ(text_copy.toStringView().data(), text.toStringView().data());

  // Copying a tensor list shares the vector: the tensors' counts do not move.
  Tensor t = cpuTensor({1});
  IValue tensors(std::vector<Tensor>{t});
  EXPECT_EQ(t.use_count(), 2u);
  IValue tensors_copy = tensors;
  EXPECT_EQ(t.use_count(), 2u);
  EXPECT_EQ(tensors_copy.toTensorList().data(), tensors.toTensorList().data());

  // The view stays valid when the original goes, as long as a copy holds the payload.
  const int64_t* data = ints.toIntList().data();
  ints = IValue();
  EXPECT_EQ(ints_copy.toIntList().data(), data);
  EXPECT_THAT(ints_copy.toIntList().vec(), ElementsAre(1, 2, 3));

  // Destroying the last holder releases the tensors.
  tensors = IValue();
  tensors_copy = IValue();
  EXPECT_EQ(t.use_count(), 1u);
}

TEST(IValueTest, MovedFromIsNone) {
  std::vector<IValue> values = {IValue(1), IValue(2.0), IValue(true), IValue("s"), IValue(cpuTensor({1})),
                                IValue(std::vector<int64_t>{1}), IValue::tuple({IValue(1)})};
  for (IValue& v : values) {
    const Tag tag = v.tag();
    IValue moved(std::move(v));
    EXPECT_EQ(moved.tag(), tag);
    EXPECT_TRUE(v.isNone()) << tag;  // NOLINT(bugprone-use-after-move): checking the move
    IValue assigned;
    assigned = std::move(moved);
    EXPECT_EQ(assigned.tag(), tag);
    EXPECT_TRUE(moved.isNone()) << tag;  // NOLINT(bugprone-use-after-move): checking the move
  }
}

TEST(IValueTest, SelfAssignmentAndAssignmentFromOwnPayload) {
  IValue v(std::vector<int64_t>{4, 5});
  IValue& alias = v;
  v = alias;
  EXPECT_THAT(v.toIntList().vec(), ElementsAre(4, 5));
  v = std::move(alias);
  EXPECT_THAT(v.toIntList().vec(), ElementsAre(4, 5));

  // The element lives in v's own payload, which the assignment releases.
  IValue nested = IValue::list({IValue(std::vector<int64_t>{7, 8})});
  nested = nested.toGenericList()[0];
  EXPECT_THAT(nested.toIntList().vec(), ElementsAre(7, 8));
}

TEST(IValueTest, StackCarriesAnOperatorsArguments) {
  Tensor self = cpuTensor({2, 3});
  Stack stack;
  stack.push_back(self);
  stack.emplace_back(IntArrayRef{1});
  stack.emplace_back(true);
  stack.emplace_back(std::optional<ScalarType>());
  stack.emplace_back(Scalar(1));
  stack.emplace_back(OptionalIntArrayRef({0, 1}));
  ASSERT_EQ(stack.size(), 6u);
  EXPECT_TRUE(stack[0].toTensorBase().is_same(self));
  EXPECT_THAT(stack[1].toIntList().vec(), ElementsAre(1));
  EXPECT_TRUE(stack[2].toBool());
  EXPECT_TRUE(stack[3].isNone());
  EXPECT_EQ(stack[4].toScalar().toLong(), 1);
  EXPECT_THAT(stack[5].toIntList().vec(), ElementsAre(0, 1));
  // Growing the stack moves its IValues; the tensor count stays exact.
  for (int i = 0; i < 100; ++i) stack.emplace_back(i);
  EXPECT_EQ(self.use_count(), 2u);
  TensorBase popped = std::move(stack.front()).toTensorBase();
  stack.clear();
  EXPECT_EQ(self.use_count(), 2u);
  EXPECT_TRUE(popped.is_same(self));
}

// --- printing and equality ---------------------------------------------------------------

TEST(IValueTest, PrintsEveryTag) {
  Tensor t = cpuTensor({2, 3});
  EXPECT_EQ(str(IValue()), "None");
  EXPECT_EQ(str(IValue(t)), "Tensor(sizes=[2, 3], dtype=Float, device=cpu)");
  EXPECT_EQ(str(IValue(cpuTensor({}, ScalarType::Long))), "Tensor(sizes=[], dtype=Long, device=cpu)");
  EXPECT_EQ(str(IValue(TensorBase())), "Tensor(undefined)");
  EXPECT_EQ(str(IValue(-3)), "-3");
  EXPECT_EQ(str(IValue(2.5)), "2.5");
  EXPECT_EQ(str(IValue(2.0)), "2.0");
  EXPECT_EQ(str(IValue(-0.0)), "-0.0");
  EXPECT_EQ(str(IValue(0.1)), "0.1");
  EXPECT_EQ(str(IValue(1e20)), "1e+20");
  EXPECT_EQ(str(IValue(std::numeric_limits<double>::infinity())), "inf");
  EXPECT_EQ(str(IValue(std::nan(""))), "nan");
  EXPECT_EQ(str(IValue(true)), "True");
  EXPECT_EQ(str(IValue(false)), "False");
  EXPECT_EQ(str(IValue("abc")), "\"abc\"");
  EXPECT_EQ(str(IValue("say \"hi\"\\\n")), R"("say \"hi\"\\\n")");
  EXPECT_EQ(str(IValue(ScalarType::Float)), "Float");
  EXPECT_EQ(str(IValue(Device(DeviceType::CPU))), "cpu");
  EXPECT_EQ(str(IValue(Device(DeviceType::CUDA, 1))), "cuda:1");
  EXPECT_EQ(str(IValue(std::vector<int64_t>{1, 2})), "[1, 2]");
  EXPECT_EQ(str(IValue(std::vector<int64_t>{})), "[]");
  EXPECT_EQ(str(IValue(std::vector<double>{1.0, 0.5})), "[1.0, 0.5]");
  EXPECT_EQ(str(IValue(std::vector<bool>{true, false})), "[True, False]");
  EXPECT_EQ(str(IValue(std::vector<TensorBase>{t, TensorBase()})),
            "[Tensor(sizes=[2, 3], dtype=Float, device=cpu), Tensor(undefined)]");
  EXPECT_EQ(str(IValue::list({IValue(), IValue(1), IValue("a")})), "[None, 1, \"a\"]");
  EXPECT_EQ(str(IValue::tuple({IValue(1), IValue::list({IValue(2.0)})})), "(1, [2.0])");
  EXPECT_EQ(str(IValue::tuple({IValue(1)})), "(1,)");
  EXPECT_EQ(str(IValue::tuple({})), "()");
  EXPECT_EQ(str(IValue(Layout::Strided)), "Strided");
  EXPECT_EQ(str(IValue(MemoryFormat::ChannelsLast)), "ChannelsLast");
  EXPECT_EQ(str(IValue(QScheme::PerChannelAffineFloatQParams)), "PerChannelAffineFloatQParams");
  EXPECT_EQ(str(IValue(Dimname::fromString("C"))), "C");
  EXPECT_EQ(str(IValue(Stream(Device(DeviceType::CUDA, 0), 2))), "stream 2 on cuda:0");
  EXPECT_EQ(str(IValue(t.storage())), "Storage(nbytes=24, device=cpu)");
  EXPECT_EQ(str(IValue(Storage())), "Storage(undefined)");
  const Generator g = Generator::create(Device(DeviceType::CPU), 42);
  g.reserveBlocks(2);
  EXPECT_EQ(str(IValue(g)), "Generator(device=cpu, seed=42, offset=2)");
  EXPECT_EQ(str(IValue(Generator())), "Generator(undefined)");
}

TEST(IValueTest, TagNamesAndTagPrinting) {
  const std::vector<std::pair<Tag, std::string>> names = {
      {Tag::None, "None"},         {Tag::Tensor, "Tensor"},         {Tag::Int, "Int"},
      {Tag::Double, "Double"},     {Tag::Bool, "Bool"},             {Tag::String, "String"},
      {Tag::ScalarType, "ScalarType"}, {Tag::Device, "Device"},     {Tag::IntList, "IntList"},
      {Tag::DoubleList, "DoubleList"}, {Tag::BoolList, "BoolList"}, {Tag::TensorList, "TensorList"},
      {Tag::GenericList, "GenericList"}, {Tag::Tuple, "Tuple"},     {Tag::Layout, "Layout"},
      {Tag::MemoryFormat, "MemoryFormat"}, {Tag::Dimname, "Dimname"}, {Tag::Stream, "Stream"},
      {Tag::QScheme, "QScheme"},
      {Tag::Storage, "Storage"},   {Tag::Generator, "Generator"}};
  for (const auto& [tag, name] : names) {
    EXPECT_EQ(IValue::tagName(tag), name);
    std::ostringstream os;
    os << tag;
    EXPECT_EQ(os.str(), name);
  }
}

TEST(IValueTest, EqualityComparesTagAndValue) {
  EXPECT_EQ(IValue(), IValue(std::nullopt));
  EXPECT_EQ(IValue(3), IValue(int64_t{3}));
  EXPECT_NE(IValue(3), IValue(4));
  // Same number, different kinds.
  EXPECT_NE(IValue(1), IValue(1.0));
  EXPECT_NE(IValue(1), IValue(true));
  EXPECT_NE(IValue(0), IValue());
  EXPECT_EQ(IValue(0.5), IValue(0.5f));
  EXPECT_NE(IValue(std::nan("")), IValue(std::nan("")));
  EXPECT_EQ(IValue(false), IValue(false));
  EXPECT_EQ(IValue("a"), IValue(std::string("a")));
  EXPECT_NE(IValue("a"), IValue("b"));
  EXPECT_EQ(IValue(ScalarType::Int), IValue(ScalarType::Int));
  EXPECT_NE(IValue(ScalarType::Int), IValue(1));  // no conversion in ==
  EXPECT_EQ(IValue(Device(DeviceType::CUDA, 0)), IValue(Device(DeviceType::CUDA, 0)));
  EXPECT_NE(IValue(Device(DeviceType::CUDA, 0)), IValue(Device(DeviceType::CUDA, 1)));

  // Tensors by identity: a copy of the handle is equal, a same-shaped other tensor is not.
  Tensor a = cpuTensor({2});
  Tensor b = cpuTensor({2});
  Tensor a_again = a;
  EXPECT_EQ(IValue(a), IValue(a_again));
  EXPECT_NE(IValue(a), IValue(b));
  EXPECT_EQ(IValue(TensorBase()), IValue(TensorBase()));
  EXPECT_EQ(IValue(std::vector<Tensor>{a, b}), IValue(std::vector<TensorBase>{a_again, b}));
  EXPECT_NE(IValue(std::vector<Tensor>{a, b}), IValue(std::vector<Tensor>{b, a}));

  // Lists element-wise, whatever their storage.
  EXPECT_EQ(IValue(std::vector<int64_t>{1, 2}), IValue(IntArrayRef{1, 2}));
  EXPECT_NE(IValue(std::vector<int64_t>{1, 2}), IValue(std::vector<int64_t>{1, 2, 3}));
  EXPECT_NE(IValue(std::vector<int64_t>{1, 2}), IValue(std::vector<double>{1, 2}));
  EXPECT_EQ(IValue(std::vector<double>{0.5}), IValue(std::vector<double>{0.5}));
  EXPECT_EQ(IValue(std::vector<bool>{true}), IValue(std::vector<bool>{true}));
  EXPECT_NE(IValue(std::vector<bool>{true}), IValue(std::vector<bool>{false}));
  EXPECT_EQ(IValue::list({IValue(1), IValue(a)}), IValue::list({IValue(1), IValue(a_again)}));
  EXPECT_NE(IValue::list({IValue(1), IValue(a)}), IValue::list({IValue(1), IValue(b)}));
  EXPECT_EQ(IValue::tuple({IValue(1), IValue("x")}), IValue::tuple({IValue(1), IValue("x")}));
  EXPECT_NE(IValue::tuple({IValue(1)}), IValue::list({IValue(1)}));

  // The value types by value, storages and generators by identity.
  EXPECT_EQ(IValue(Layout::Sparse), IValue(Layout::Sparse));
  EXPECT_NE(IValue(Layout::Sparse), IValue(Layout::Strided));
  EXPECT_NE(IValue(Layout::Sparse), IValue(1));
  EXPECT_EQ(IValue(MemoryFormat::Preserve), IValue(MemoryFormat::Preserve));
  EXPECT_NE(IValue(MemoryFormat::Preserve), IValue(MemoryFormat::Contiguous));
  EXPECT_EQ(IValue(QScheme::PerTensorSymmetric), IValue(QScheme::PerTensorSymmetric));
  EXPECT_NE(IValue(QScheme::PerTensorSymmetric), IValue(QScheme::PerChannelSymmetric));
  EXPECT_NE(IValue(QScheme::PerTensorAffine), IValue(Layout::Strided));  // both 0, different tags
  EXPECT_EQ(IValue(Dimname::fromString("H")), IValue(Dimname::fromString("H")));
  EXPECT_NE(IValue(Dimname::fromString("H")), IValue(Dimname::wildcard()));
  EXPECT_EQ(IValue(Stream(Device(DeviceType::CPU), 0)), IValue(Stream()));
  EXPECT_NE(IValue(Stream(Device(DeviceType::CPU), 1)), IValue(Stream()));
  EXPECT_EQ(IValue(a.storage()), IValue(a_again.storage()));
  EXPECT_NE(IValue(a.storage()), IValue(b.storage()));
  const Generator g = Generator::create();
  EXPECT_EQ(IValue(g), IValue(Generator(g)));
  EXPECT_NE(IValue(g), IValue(g.clone()));  // same state, another generator
}

}  // namespace
}  // namespace opcore
