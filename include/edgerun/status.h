// Status and Result<T>: the one error type of edgerun. Errors are values with context; nothing
// in the library throws across its API or aborts on bad input.
#pragma once

#include <charconv>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace edgerun {

namespace detail {

// One piece of StrCat, written as an ostream would write it. Strings, characters, integers and
// floating-point numbers are appended directly: a std::ostringstream costs a locale copy each, and
// labels are built on paths that succeed too (building an interpreter made hundreds of them).
template <class T>
void AppendPiece(std::string& out, const T& value) {
  using D = std::decay_t<T>;
  if constexpr (std::is_array_v<T> && std::is_same_v<std::remove_cv_t<std::remove_extent_t<T>>, char>) {
    out.append(std::string_view(value));  // a literal or char array: up to its terminator
  } else if constexpr (std::is_same_v<D, const char*> || std::is_same_v<D, char*>) {
    if (value != nullptr) out.append(value);  // an ostream writes nothing for null
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    out.append(std::string_view(value));
  } else if constexpr (std::is_same_v<D, char>) {
    out.push_back(value);
  } else if constexpr (std::is_integral_v<D> && !std::is_same_v<D, bool> && !std::is_same_v<D, signed char> &&
                       !std::is_same_v<D, unsigned char> && sizeof(D) >= sizeof(short)) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof(digits), value).ptr;
    out.append(digits, end);
  } else if constexpr (std::is_same_v<D, float> || std::is_same_v<D, double>) {
    char digits[32];  // an ostream's default: %g with 6 significant digits
    const int n = std::snprintf(digits, sizeof(digits), "%g", static_cast<double>(value));
    if (n > 0) out.append(digits, static_cast<size_t>(n) < sizeof(digits) ? static_cast<size_t>(n) : sizeof(digits) - 1);
  } else {
    std::ostringstream stream;
    stream << value;
    out += stream.str();
  }
}

}  // namespace detail

// Concatenates anything that can be written to an ostream: StrCat("op ", 3, ": ", name).
template <class... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (detail::AppendPiece(out, args), ...);
  return out;
}

enum class StatusCode {
  kOk,
  kError,        // the model, an input or a call is wrong
  kUnsupported,  // valid, but edgerun does not implement it (an op, version or type combination)
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(StatusCode::kError, std::move(message)); }
  static Status Unsupported(std::string message) { return Status(StatusCode::kUnsupported, std::move(message)); }
  template <class... Args>
  static Status Errorf(const Args&... args) {
    return Status(StatusCode::kError, StrCat(args...));
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  bool unsupported() const { return code_ == StatusCode::kUnsupported; }
  const std::string& message() const { return message_; }

  // Adds where the error happened in front of the message: "context: message".
  Status WithContext(std::string_view context) const {
    if (ok() || context.empty()) return *this;
    return Status(code_, std::string(context) + ": " + message_);
  }

 private:
  Status(StatusCode code, std::string message) : message_(std::move(message)), code_(code) {}
  std::string message_;
  StatusCode code_ = StatusCode::kOk;
};

// Either a value or the error that prevented it.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status::Error("internal error: Result built from an OK status");
  }
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  T& operator*() { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace edgerun

#define ER_CONCAT_INNER(a, b) a##b
#define ER_CONCAT(a, b) ER_CONCAT_INNER(a, b)

// Returns the status from the enclosing function when `expr` failed.
#define ER_RETURN_IF_ERROR(expr)                       \
  do {                                                 \
    ::edgerun::Status er_status_ = (expr);             \
    if (!er_status_.ok()) return er_status_;           \
  } while (0)

// As ER_RETURN_IF_ERROR, with `context` in front of the message (Status::WithContext). `context` is
// evaluated only on failure: building "model: subgraph 0"-like strings for every tensor was a few
// hundred allocations of each AllocateTensors.
#define ER_RETURN_IF_ERROR_IN(context, expr)                             \
  do {                                                                   \
    ::edgerun::Status er_status_ = (expr);                               \
    if (!er_status_.ok()) return er_status_.WithContext(context);        \
  } while (0)

// Returns an error built from the remaining arguments when `cond` is false.
#define ER_CHECK(cond, ...)                                                  \
  do {                                                                       \
    if (!(cond)) return ::edgerun::Status::Errorf(__VA_ARGS__);              \
  } while (0)
