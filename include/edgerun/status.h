// Status and Result<T>: the one error type of edgerun. Errors are values with context; nothing
// in the library throws across its API or aborts on bad input.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace edgerun {

// Concatenates anything that can be written to an ostream: StrCat("op ", 3, ": ", name).
template <class... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
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

// Returns an error built from the remaining arguments when `cond` is false.
#define ER_CHECK(cond, ...)                                                  \
  do {                                                                       \
    if (!(cond)) return ::edgerun::Status::Errorf(__VA_ARGS__);              \
  } while (0)
