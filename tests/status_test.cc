// StrCat writes every piece as an ostream would (it appends the common types directly).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

#include "edgerun/status.h"
#include "edgerun/types.h"

namespace edgerun {
namespace {

template <class T>
std::string ThroughStream(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

template <class T>
void ExpectLikeStream(const T& value) {
  EXPECT_EQ(StrCat(value), ThroughStream(value));
}

TEST(StrCat, WritesEachPieceAsAnOstream) {
  const std::string s = "tensor";
  const std::string_view v = "view";
  const char* null_text = nullptr;
  char chars[] = "mutable";
  ExpectLikeStream(s);
  ExpectLikeStream(v);
  ExpectLikeStream("literal");
  ExpectLikeStream(static_cast<const char*>(chars));
  ExpectLikeStream('x');
  EXPECT_EQ(StrCat("a", null_text, "b"), "ab");  // an ostream writes nothing for a null char*
  for (int64_t i : {int64_t{0}, int64_t{-1}, int64_t{42}, std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max()}) {
    ExpectLikeStream(i);
    ExpectLikeStream(static_cast<int32_t>(i));
    ExpectLikeStream(static_cast<int16_t>(i));
    ExpectLikeStream(static_cast<uint64_t>(i));
    ExpectLikeStream(static_cast<uint32_t>(i));
    ExpectLikeStream(static_cast<size_t>(i));
  }
  // 8-bit integers are characters to an ostream, and bool is 0 or 1.
  ExpectLikeStream(static_cast<int8_t>(65));
  ExpectLikeStream(static_cast<uint8_t>(66));
  ExpectLikeStream(true);
  for (double d : {0.0, -0.0, 1.0, 0.1, 1e-7, 123456.0, 1234567.0, 3.14159265358979, -2.5e300, 1e-320,
                   std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::max()}) {
    ExpectLikeStream(d);
    ExpectLikeStream(static_cast<float>(d));
  }
  ExpectLikeStream(std::numeric_limits<float>::denorm_min());
  // Everything else still goes through an ostream (here a long double and a pointer).
  ExpectLikeStream(1.25L);
  const void* p = &s;
  ExpectLikeStream(p);
  EXPECT_EQ(StrCat("op ", 3, " (", std::string("CONV_2D"), ") scale ", 0.5f, ", ", -7, 'x', uint8_t{67}),
            "op 3 (CONV_2D) scale 0.5, -7xC");
  EXPECT_EQ(StrCat(), "");
}

// ER_RETURN_IF_ERROR_IN builds its context only for a failure, and puts it in front of the message.
Status Checked(bool fail, int* contexts_built) {
  auto context = [&] {
    ++*contexts_built;
    return std::string("model.tflite: subgraph 0");
  };
  ER_RETURN_IF_ERROR_IN(context(), fail ? Status::Error("tensor 3: too large") : Status::Ok());
  return Status::Ok();
}

TEST(Status, ReturnIfErrorInBuildsTheContextOnlyForAFailure) {
  int built = 0;
  EXPECT_TRUE(Checked(false, &built).ok());
  EXPECT_EQ(built, 0);
  const Status failed = Checked(true, &built);
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(built, 1);
  EXPECT_EQ(failed.message(), "model.tflite: subgraph 0: tensor 3: too large");
}

}  // namespace
}  // namespace edgerun
