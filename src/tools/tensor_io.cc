#include "tools/tensor_io.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>

#include "quant/float16.h"

namespace edgerun::tools {
namespace {

struct NpyType {
  const char* descr;
  TensorType type;
};
constexpr NpyType kNpyTypes[] = {
    {"f4", TensorType::kFloat32}, {"f8", TensorType::kFloat64}, {"f2", TensorType::kFloat16},
    {"i1", TensorType::kInt8},    {"u1", TensorType::kUInt8},   {"i2", TensorType::kInt16},
    {"u2", TensorType::kUInt16},  {"i4", TensorType::kInt32},   {"u4", TensorType::kUInt32},
    {"i8", TensorType::kInt64},   {"u8", TensorType::kUInt64},  {"b1", TensorType::kBool},
    {"c8", TensorType::kComplex64},
};

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

Status ReadFileBytes(const std::string& path, std::vector<uint8_t>* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Errorf(path, ": cannot open: ", std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return Status::Errorf(path, ": cannot read");
  in.seekg(0);
  bytes->resize(static_cast<size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes->data()), size)) return Status::Errorf(path, ": read failed");
  return Status::Ok();
}

Status WriteFileBytes(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::Errorf(path, ": cannot write: ", std::strerror(errno));
  if (size > 0) out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) return Status::Errorf(path, ": write failed");
  return Status::Ok();
}

static Status ParseNpy(const std::string& path, const std::vector<uint8_t>& raw, TensorFile* file) {
  if (raw.size() < 10) return Status::Errorf(path, ": truncated .npy header");
  const int major = raw[6];
  size_t header_len, start;
  if (major == 1) {
    header_len = raw[8] | (raw[9] << 8);
    start = 10;
  } else {
    if (raw.size() < 12) return Status::Errorf(path, ": truncated .npy header");
    header_len = raw[8] | (raw[9] << 8) | (raw[10] << 16) | (static_cast<size_t>(raw[11]) << 24);
    start = 12;
  }
  if (start + header_len > raw.size()) return Status::Errorf(path, ": truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(raw.data() + start), header_len);
  auto value_after = [&](const std::string& key) -> std::string {
    const size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) return "";
    const size_t colon = header.find(':', k);
    return colon == std::string::npos ? "" : header.substr(colon + 1);
  };
  const std::string descr_part = value_after("descr");
  const size_t q1 = descr_part.find('\'');
  const size_t q2 = q1 == std::string::npos ? q1 : descr_part.find('\'', q1 + 1);
  if (q2 == std::string::npos) return Status::Errorf(path, ": .npy header without a descr");
  const std::string descr = descr_part.substr(q1 + 1, q2 - q1 - 1);
  if (descr.size() < 3 || descr[0] == '>') {
    return Status::Errorf(path, ": unsupported .npy dtype '", descr, "' (little-endian numeric types only)");
  }
  bool known = false;
  for (const auto& t : kNpyTypes) {
    if (descr.substr(1) == t.descr) {
      file->type = t.type;
      known = true;
    }
  }
  if (!known) return Status::Errorf(path, ": unsupported .npy dtype '", descr, "'");
  if (value_after("fortran_order").find("True") < value_after("fortran_order").find(',')) {
    return Status::Errorf(path, ": Fortran-ordered .npy arrays are not supported");
  }
  const std::string shape_part = value_after("shape");
  const size_t open = shape_part.find('('), close = shape_part.find(')');
  if (open == std::string::npos || close == std::string::npos) return Status::Errorf(path, ": .npy header without a shape");
  file->shape.clear();
  std::string number;
  for (size_t i = open + 1; i <= close; ++i) {
    const char c = shape_part[i];
    if (c >= '0' && c <= '9') {
      number += c;
      if (number.size() > 12) return Status::Errorf(path, ": .npy dimension too large");
    } else if (!number.empty()) {
      const long long v = std::stoll(number);
      if (v > std::numeric_limits<int32_t>::max()) return Status::Errorf(path, ": .npy dimension too large");
      file->shape.push_back(static_cast<int32_t>(v));
      number.clear();
    }
  }
  file->has_shape = true;
  const int64_t elements = NumElements(file->shape);
  size_t bytes = 0;
  if (elements < 0 || !TensorBytes(file->type, elements, &bytes) || start + header_len + bytes > raw.size()) {
    return Status::Errorf(path, ": .npy data is shorter than its shape ", ShapeToString(file->shape), " needs");
  }
  file->data.assign(raw.begin() + start + header_len, raw.begin() + start + header_len + bytes);
  return Status::Ok();
}

Status ReadTensorFile(const std::string& path, bool want_text, TensorFile* file) {
  std::vector<uint8_t> raw;
  ER_RETURN_IF_ERROR(ReadFileBytes(path, &raw));
  if (raw.size() >= 6 && std::memcmp(raw.data(), "\x93NUMPY", 6) == 0) return ParseNpy(path, raw, file);
  if (want_text) {
    SplitTextLines(raw, file);
    return Status::Ok();
  }
  file->data = std::move(raw);
  return Status::Ok();
}

void SplitTextLines(const std::vector<uint8_t>& raw, TensorFile* file) {
  file->is_text = true;
  file->lines.clear();
  std::string line;
  for (uint8_t c : raw) {
    if (c == '\n') {
      if (!line.empty() && line.back() == '\r') line.pop_back();  // a Windows line end
      file->lines.push_back(line);
      line.clear();
    } else {
      line += static_cast<char>(c);
    }
  }
  if (!line.empty()) file->lines.push_back(line);
}

Status WriteNpy(const std::string& path, const Tensor& tensor) {
  const char* descr = nullptr;
  for (const auto& t : kNpyTypes) {
    if (t.type == tensor.type) descr = t.descr;
  }
  if (descr == nullptr) return Status::Errorf(path, ": type ", TensorTypeName(tensor.type), " has no .npy form");
  std::string shape = "(";
  for (size_t i = 0; i < tensor.shape.size(); ++i) shape += std::to_string(tensor.shape[i]) + ", ";
  if (tensor.shape.size() > 1) shape.erase(shape.size() - 2);
  else if (tensor.shape.size() == 1) shape.erase(shape.size() - 1);
  shape += ")";
  std::string header = StrCat("{'descr': '", tensor.type == TensorType::kBool ? "|" : "<", descr,
                              "', 'fortran_order': False, 'shape': ", shape, ", }");
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.push_back(static_cast<uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  const auto* data = static_cast<const uint8_t*>(tensor.data);
  if (data != nullptr) out.insert(out.end(), data, data + tensor.bytes);
  return WriteFileBytes(path, out.data(), out.size());
}

Status InferShapeFromBytes(const Tensor& tensor, size_t bytes, Shape* shape) {
  size_t expected = 0;
  if (TensorBytes(tensor.type, tensor.num_elements(), &expected) && expected == bytes) {
    *shape = tensor.shape;
    return Status::Ok();
  }
  const size_t element = TensorTypeSize(tensor.type);
  int dynamic = -1, count = 0;
  int64_t known = 1;
  for (size_t d = 0; d < tensor.shape_signature.size(); ++d) {
    if (tensor.shape_signature[d] < 0) {
      dynamic = static_cast<int>(d);
      ++count;
    } else if (tensor.shape_signature[d] > 0 && known > (int64_t{1} << 40) / tensor.shape_signature[d]) {
      known = -1;  // more elements than any file holds
      break;
    } else {
      known *= tensor.shape_signature[d];
    }
  }
  if (count == 1 && element > 0 && known > 0 && bytes % (element * known) == 0 &&
      tensor.shape_signature.size() == tensor.shape.size()) {
    *shape = tensor.shape_signature;
    (*shape)[dynamic] = static_cast<int32_t>(bytes / (element * known));
    return Status::Ok();
  }
  std::string hint = count > 1 ? " (several dimensions are dynamic: give the shape with --resize NAME:D0,D1,... "
                                 "or use a .npy file)"
                               : "";
  return Status::Errorf("input '", tensor.name, "' ", TensorTypeName(tensor.type), ShapeToString(tensor.shape),
                        " needs ", expected, " bytes, the file has ", bytes, hint);
}

void FillRandom(Tensor* tensor, uint64_t seed) {
  uint64_t state = seed * 0x2545f4914f6cdd1dull + 1;
  const int64_t n = tensor->num_elements();
  auto uniform = [&] { return static_cast<double>(SplitMix64(&state) >> 11) / 9007199254740992.0; };
  for (int64_t i = 0; i < n; ++i) {
    switch (tensor->type) {
      case TensorType::kFloat32: tensor->data_as<float>()[i] = static_cast<float>(uniform() * 2 - 1); break;
      case TensorType::kFloat64: tensor->data_as<double>()[i] = uniform() * 2 - 1; break;
      case TensorType::kFloat16:
        tensor->data_as<uint16_t>()[i] = FloatToHalf(static_cast<float>(uniform() * 2 - 1));
        break;
      case TensorType::kInt8: tensor->data_as<int8_t>()[i] = static_cast<int8_t>(SplitMix64(&state)); break;
      case TensorType::kUInt8: tensor->data_as<uint8_t>()[i] = static_cast<uint8_t>(SplitMix64(&state)); break;
      case TensorType::kInt16: tensor->data_as<int16_t>()[i] = static_cast<int16_t>(SplitMix64(&state)); break;
      case TensorType::kInt32: tensor->data_as<int32_t>()[i] = static_cast<int32_t>(SplitMix64(&state) % 16); break;
      case TensorType::kInt64: tensor->data_as<int64_t>()[i] = static_cast<int64_t>(SplitMix64(&state) % 16); break;
      case TensorType::kBool: tensor->data_as<uint8_t>()[i] = SplitMix64(&state) & 1; break;
      default:
        if (tensor->data && IsFixedSizeType(tensor->type)) std::memset(tensor->data, 0, tensor->bytes);
        return;
    }
  }
}

namespace {

// Element i of a numeric tensor as a double (quantized tensors: the stored integer).
double ValueAt(const Tensor& t, int64_t i) {
  switch (t.type) {
    case TensorType::kFloat32: return t.data_as<float>()[i];
    case TensorType::kFloat64: return t.data_as<double>()[i];
    case TensorType::kFloat16: return HalfToFloat(t.data_as<uint16_t>()[i]);
    case TensorType::kInt8: return t.data_as<int8_t>()[i];
    case TensorType::kUInt8: return t.data_as<uint8_t>()[i];
    case TensorType::kInt16: return t.data_as<int16_t>()[i];
    case TensorType::kUInt16: return t.data_as<uint16_t>()[i];
    case TensorType::kInt32: return t.data_as<int32_t>()[i];
    case TensorType::kUInt32: return t.data_as<uint32_t>()[i];
    case TensorType::kInt64: return static_cast<double>(t.data_as<int64_t>()[i]);
    case TensorType::kUInt64: return static_cast<double>(t.data_as<uint64_t>()[i]);
    case TensorType::kBool: return t.data_as<uint8_t>()[i] != 0;
    default: return 0;
  }
}

bool IsNumeric(TensorType type) {
  switch (type) {
    case TensorType::kFloat32: case TensorType::kFloat64: case TensorType::kFloat16: case TensorType::kInt8:
    case TensorType::kUInt8: case TensorType::kInt16: case TensorType::kUInt16: case TensorType::kInt32:
    case TensorType::kUInt32: case TensorType::kInt64: case TensorType::kUInt64: case TensorType::kBool:
      return true;
    default:
      return false;
  }
}

}  // namespace

TensorSummary Summarize(const Tensor& tensor, int top_k) {
  // One pass, no copy of the values (outputs can be large): min, max, mean, and the top k in a
  // small heap. NaN ranks below every number.
  TensorSummary s;
  const int64_t n = tensor.num_elements();
  size_t bytes = 0;
  if (n <= 0 || tensor.data == nullptr || !IsNumeric(tensor.type) || !TensorBytes(tensor.type, n, &bytes) ||
      tensor.bytes < bytes) {
    return s;
  }
  auto rank = [](double v) { return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v; };
  // "a ranks above b": larger value, then the earlier index.
  auto above = [&](const std::pair<int64_t, double>& a, const std::pair<int64_t, double>& b) {
    return rank(a.second) > rank(b.second) || (rank(a.second) == rank(b.second) && a.first < b.first);
  };
  const size_t k = top_k > 0 ? static_cast<size_t>(std::min<int64_t>(top_k, n)) : 0;
  std::vector<std::pair<int64_t, double>> heap;  // the k best so far, worst on top
  heap.reserve(k);
  double sum = 0;
  s.min = s.max = ValueAt(tensor, 0);
  for (int64_t i = 0; i < n; ++i) {
    const double v = ValueAt(tensor, i);
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
    if (k == 0) continue;
    if (heap.size() < k) {
      heap.emplace_back(i, v);
      std::push_heap(heap.begin(), heap.end(), above);
    } else if (above({i, v}, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), above);
      heap.back() = {i, v};
      std::push_heap(heap.begin(), heap.end(), above);
    }
  }
  s.count = n;
  s.mean = sum / static_cast<double>(n);
  std::sort_heap(heap.begin(), heap.end(), above);
  s.top = std::move(heap);
  return s;
}

}  // namespace edgerun::tools
