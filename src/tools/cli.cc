// Shared pieces of the subcommands: messages, argument parsing, resource limits, the watchdog.
#include "tools/cli.h"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <sstream>
#include <thread>

namespace edgerun::tools {

const char kLimitUsage[] =
    "  --max-tensor-bytes N   largest single tensor (default 1G; suffixes K, M, G)\n"
    "  --max-memory N         memory for activations and tensors sized at run time (default 4G)\n"
    "  --max-while-iterations N  iterations of one WHILE op (default 1000000)\n"
    "  --timeout SECONDS      stop with an error after this long (default: no limit)\n";

int Fail(const std::string& message) {
  std::cerr << "edgerun: " << message << "\n";
  return kExitError;
}

int UsageError(const std::string& command, const std::string& message, const char* usage) {
  std::cerr << "edgerun " << command << ": " << message << "\n" << usage;
  return kExitUsage;
}

std::string QuantizationText(const QuantizationParams& q) {
  if (q.empty()) return "";
  std::ostringstream s;
  if (q.per_channel()) {
    s << "per-channel axis " << q.quantized_dimension << ", " << q.scale.size() << " scales";
  } else {
    s << "scale=" << q.scale[0] << " zero_point=" << (q.zero_point.empty() ? 0 : q.zero_point[0]);
  }
  return s.str();
}

bool ParseShape(const std::string& text, Shape* shape) {
  shape->clear();
  if (text.empty()) return true;  // a scalar
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    long long v;
    if (!ParseInt(part, &v) || v > 0x7fffffff) return false;
    shape->push_back(static_cast<int32_t>(v));
  }
  return true;
}

bool ParseInt(const std::string& text, long long* value) {
  if (text.empty() || text.size() > 18) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  *value = std::stoll(text);
  return true;
}

bool ParseDelegateName(const std::string& text, bool* use_xnnpack) {
  if (text == "xnnpack" || text == "XNNPACK") *use_xnnpack = true;
  else if (text == "none") *use_xnnpack = false;
  else return false;
  return true;
}

bool ParseByteSize(const std::string& text, size_t* bytes) {
  if (text.empty()) return false;
  int shift = 0;
  std::string digits = text;
  switch (text.back()) {
    case 'K':
    case 'k':
      shift = 10;
      break;
    case 'M':
    case 'm':
      shift = 20;
      break;
    case 'G':
    case 'g':
      shift = 30;
      break;
    default:
      break;
  }
  if (shift > 0) digits.pop_back();
  long long v;
  if (!ParseInt(digits, &v) || v < 1 || static_cast<unsigned long long>(v) > (~0ull >> (shift + 1))) return false;
  *bytes = static_cast<size_t>(v) << shift;
  return true;
}

InterpreterOptions DefaultCliOptions() {
  InterpreterOptions options;
  options.max_tensor_bytes = size_t{1} << 30;
  options.max_arena_bytes = size_t{4} << 30;
  options.max_while_iterations = 1000000;
  return options;
}

int ParseLimitFlag(const std::vector<std::string>& args, size_t* i, InterpreterOptions* options,
                   double* timeout_seconds, std::string* error) {
  const std::string& flag = args[*i];
  if (flag != "--max-tensor-bytes" && flag != "--max-memory" && flag != "--max-while-iterations" &&
      flag != "--timeout") {
    return 0;
  }
  if (*i + 1 >= args.size()) {
    *error = flag + " needs a value";
    return -1;
  }
  const std::string& value = args[++*i];
  size_t bytes;
  long long number;
  if (flag == "--max-tensor-bytes" || flag == "--max-memory") {
    if (!ParseByteSize(value, &bytes)) {
      *error = StrCat("bad ", flag, " '", value, "' (a positive number of bytes, e.g. 512M or 2G)");
      return -1;
    }
    (flag == "--max-tensor-bytes" ? options->max_tensor_bytes : options->max_arena_bytes) = bytes;
  } else if (flag == "--max-while-iterations") {
    if (!ParseInt(value, &number)) {
      *error = StrCat("bad --max-while-iterations '", value, "' (a non-negative number)");
      return -1;
    }
    options->max_while_iterations = number;
  } else {
    if (!ParseInt(value, &number) || number < 1 || number > 1000000) {
      *error = StrCat("bad --timeout '", value, "' (seconds, 1 to 1000000)");
      return -1;
    }
    *timeout_seconds = static_cast<double>(number);
  }
  return 1;
}

void StartWatchdog(double seconds, const std::string& what) {
  if (seconds <= 0) return;
  std::thread([seconds, what] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    const std::string message = StrCat("edgerun: ", what, ": stopped after ", seconds, " s (--timeout)\n");
    // The main thread may be anywhere: write and leave without running destructors.
    (void)!write(STDERR_FILENO, message.data(), message.size());
    _exit(kExitError);
  }).detach();
}

}  // namespace edgerun::tools
