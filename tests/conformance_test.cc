// Runs every case of the conformance corpus (../shared/conformance) in-process and compares the
// outputs with the case's tolerance as the corpus README defines it (shared/tools/eval/compare.py
// applies the same rules but ignores the per-output `first_n` / `indices` selectors, so a case
// can pass here and fail there only on elements the README declares unstable).
//
//   conformance_test CORPUS_DIR [--strict] [--filter SUBSTRING] [--known FILE] [--delegate xnnpack|none]
//
// --delegate: xnnpack (the interpreter's default) or none (builtin kernels only).
// Prints "PASS name", "FAIL name: why" or "SKIP name: why" per case, then the totals. --known
// names a JSON file of documented deviations (tests/conformance_known_deviations.json: the case,
// the output and why the reference output is wrong); a failure of exactly that output prints
// "XFAIL name: why (known: reason)" and is counted apart; a listed case that passes prints XPASS.
// A case is skipped when edgerun does not implement something it needs (an op, a version or a type); any
// other error or a mismatch is a failure. --strict counts skips as failures. Exit status 1 when
// anything failed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/subgraph.h"
#include "edgerun/interpreter.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace edgerun;

namespace {

enum class Outcome { kPass, kFail, kSkip };

struct CaseResult {
  Outcome outcome;
  std::string detail;
};

CaseResult Fail(std::string why) { return {Outcome::kFail, std::move(why)}; }

CaseResult FromStatus(const Status& st) {
  return {st.unsupported() ? Outcome::kSkip : Outcome::kFail, st.message()};
}

bool ReadFile(const fs::path& path, std::vector<uint8_t>* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

size_t DtypeSize(const std::string& dtype) {
  if (dtype == "float64" || dtype == "int64" || dtype == "uint64") return 8;
  if (dtype == "float32" || dtype == "int32" || dtype == "uint32") return 4;
  if (dtype == "int16" || dtype == "uint16") return 2;
  return 1;
}

double ValueAt(const std::string& dtype, const uint8_t* p, size_t i) {
  auto get = [&](auto tag) {
    decltype(tag) v;
    std::memcpy(&v, p + i * sizeof(v), sizeof(v));
    return static_cast<double>(v);
  };
  if (dtype == "float32") return get(float{});
  if (dtype == "float64") return get(double{});
  if (dtype == "int8") return get(int8_t{});
  if (dtype == "uint8" || dtype == "bool") return get(uint8_t{});
  if (dtype == "int16") return get(int16_t{});
  if (dtype == "uint16") return get(uint16_t{});
  if (dtype == "int32") return get(int32_t{});
  if (dtype == "uint32") return get(uint32_t{});
  if (dtype == "int64") return get(int64_t{});
  return get(uint64_t{});
}

// compare.py's rules: floats within atol + rtol*|exp| (NaN meets NaN); integers within
// int_max_abs_diff with at least int_min_exact_fraction exact; bools exact.
std::string CompareOutput(const std::string& dtype, const std::vector<uint8_t>& expected, const Tensor& got,
                          const json& tol, int k) {
  const size_t size = DtypeSize(dtype);
  const size_t n = expected.size() / size;
  if (got.bytes != expected.size()) {
    return "output " + std::to_string(k) + " has " + std::to_string(got.bytes) + " bytes (" + TensorTypeName(got.type) +
           ShapeToString(got.shape) + "), expected " + std::to_string(expected.size());
  }
  const auto* g = static_cast<const uint8_t*>(got.data);
  // The README's per-output selectors: only the first N elements, or only some flat indices
  // (used where the other elements are unstable across correct implementations).
  std::vector<size_t> selected;
  if (tol.contains("indices")) {
    for (const auto& i : tol["indices"]) {
      if (i.get<size_t>() < n) selected.push_back(i.get<size_t>());
    }
  } else {
    const size_t first_n = tol.contains("first_n") ? std::min<size_t>(tol["first_n"].get<size_t>(), n) : n;
    for (size_t i = 0; i < first_n; ++i) selected.push_back(i);
  }
  size_t exact = 0;
  double max_diff = 0;
  long first_bad = -1;
  if (dtype == "float32" || dtype == "float64") {
    const double atol = tol.value("float_atol", 0.0), rtol = tol.value("float_rtol", 0.0);
    for (size_t i : selected) {
      const double e = ValueAt(dtype, expected.data(), i), v = ValueAt(dtype, g, i);
      if (e == v || (std::isnan(e) && std::isnan(v))) {
        ++exact;
        continue;
      }
      const double d = (std::isfinite(e) && std::isfinite(v)) ? std::fabs(v - e) : INFINITY;
      max_diff = std::max(max_diff, d);
      if (!(d <= atol + rtol * std::fabs(e)) && first_bad < 0) first_bad = static_cast<long>(i);
    }
    if (first_bad >= 0) {
      return "output " + std::to_string(k) + " max_abs_diff=" + std::to_string(max_diff) + " first mismatch at " +
             std::to_string(first_bad) + ": got " + std::to_string(ValueAt(dtype, g, first_bad)) + " exp " +
             std::to_string(ValueAt(dtype, expected.data(), first_bad));
    }
    return "";
  }
  const bool as_bool = dtype == "bool";
  const double max_d = as_bool ? 0 : tol.value("int_max_abs_diff", 0.0);
  const double min_frac = as_bool ? 1.0 : tol.value("int_min_exact_fraction", 1.0);
  for (size_t i : selected) {
    double e = ValueAt(dtype, expected.data(), i), v = ValueAt(dtype, g, i);
    if (as_bool) {
      e = e != 0;
      v = v != 0;
    }
    if (e == v) {
      ++exact;
      continue;
    }
    max_diff = std::max(max_diff, std::fabs(v - e));
    if (std::fabs(v - e) > max_d && first_bad < 0) first_bad = static_cast<long>(i);
  }
  const double frac = selected.empty() ? 1.0 : static_cast<double>(exact) / selected.size();
  if (first_bad >= 0 || frac < min_frac) {
    return "output " + std::to_string(k) + " max_abs_diff=" + std::to_string(max_diff) +
           " exact_fraction=" + std::to_string(frac);
  }
  return "";
}

CaseResult RunCase(const fs::path& dir, const json& c, const InterpreterOptions& options) {
  const fs::path model_path = dir / "model.tflite";
  auto model = Model::FromFile(model_path.string());
  if (!model.ok()) return FromStatus(model.status());
  auto created = Interpreter::Create(*model, options);
  if (!created.ok()) return FromStatus(created.status());
  Interpreter& interpreter = **created;
  int subgraph_index = 0;
  if (c.contains("signature") && !c["signature"].is_null()) {
    SignatureRunner* runner = interpreter.GetSignatureRunner(c["signature"].get<std::string>());
    if (!runner) return Fail("no signature " + c["signature"].get<std::string>());
    subgraph_index = runner->subgraph_index();
  }
  Subgraph& sg = *interpreter.subgraph(subgraph_index);
  std::vector<json> inputs = c["inputs"].get<std::vector<json>>();
  std::sort(inputs.begin(), inputs.end(), [](const json& a, const json& b) { return a["index"] < b["index"]; });
  if (inputs.size() != sg.inputs().size()) {
    return Fail("case has " + std::to_string(inputs.size()) + " inputs, subgraph has " + std::to_string(sg.inputs().size()));
  }
  std::vector<std::vector<uint8_t>> data(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!ReadFile(dir / inputs[k]["file"].get<std::string>(), &data[k])) return Fail("cannot read input file");
    const Shape shape = inputs[k]["shape"].get<Shape>();
    if (shape != sg.tensor(sg.inputs()[k])->shape) {
      Status st = sg.ResizeInputTensor(static_cast<int>(k), shape);
      if (!st.ok()) return FromStatus(st);
    }
  }
  if (Status st = sg.AllocateTensors(); !st.ok()) return FromStatus(st);
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor* t = sg.tensor(sg.inputs()[k]);
    if (t->bytes != data[k].size()) {
      return Fail("input " + std::to_string(k) + " needs " + std::to_string(t->bytes) + " bytes, file has " +
                  std::to_string(data[k].size()));
    }
    if (!data[k].empty()) std::memcpy(t->data, data[k].data(), data[k].size());
  }
  if (Status st = sg.Invoke(); !st.ok()) return FromStatus(st);
  const json tolerance = c.value("tolerance", json::object());
  for (const json& out : c["outputs"]) {
    const int k = out["index"];
    if (k >= static_cast<int>(sg.outputs().size())) return Fail("missing output " + std::to_string(k));
    json tol = tolerance;
    if (tolerance.contains("per_output") && tolerance["per_output"].contains(std::to_string(k))) {
      for (auto& [key, value] : tolerance["per_output"][std::to_string(k)].items()) tol[key] = value;
    }
    std::vector<uint8_t> expected;
    if (!ReadFile(dir / out["file"].get<std::string>(), &expected)) return Fail("cannot read expected output");
    const std::string why = CompareOutput(out["dtype"], expected, *sg.tensor(sg.outputs()[k]), tol, k);
    if (!why.empty()) return Fail(why);
  }
  return {Outcome::kPass, ""};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: conformance_test CORPUS_DIR [--strict] [--filter SUBSTRING] [--delegate xnnpack|none]\n";
    return 2;
  }
  const fs::path root = argv[1];
  bool strict = false;
  std::string filter;
  json known = json::object();
  InterpreterOptions options;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--strict") {
      strict = true;
    } else if (std::string(argv[i]) == "--filter" && i + 1 < argc) {
      filter = argv[++i];
    } else if (std::string(argv[i]) == "--known" && i + 1 < argc) {
      std::ifstream in(argv[++i]);
      try {
        known = json::parse(in);
      } catch (const std::exception& e) {
        std::cerr << "conformance_test: cannot read " << argv[i] << ": " << e.what() << "\n";
        return 2;
      }
    } else if (std::string(argv[i]) == "--delegate" && i + 1 < argc) {
      const std::string name = argv[++i];
      if (name != "xnnpack" && name != "none") {
        std::cerr << "conformance_test: --delegate needs xnnpack or none\n";
        return 2;
      }
      options.use_xnnpack = name == "xnnpack";
      if (options.use_xnnpack && !XnnpackAvailable()) {
        std::cerr << "conformance_test: this build has no XNNPACK\n";
        return 2;
      }
    }
  }
  if (!fs::is_directory(root)) {
    std::cout << "SKIP conformance: " << root << " not found (the shared reference data is not next to this "
                 "checkout); nothing was run\n";
    return 0;
  }
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (fs::exists(entry.path() / "case.json") && entry.path().filename().string().find(filter) != std::string::npos) {
      cases.push_back(entry.path());
    }
  }
  std::sort(cases.begin(), cases.end());
  int passed = 0, failed = 0, skipped = 0, known_failures = 0;
  for (const fs::path& dir : cases) {
    const std::string name = dir.filename().string();
    CaseResult r;
    const auto start = std::chrono::steady_clock::now();
    try {
      std::ifstream in(dir / "case.json");
      r = RunCase(dir, json::parse(in), options);
    } catch (const std::exception& e) {
      r = Fail(std::string("bad case.json: ") + e.what());
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::string detail = r.detail.size() > 400 ? r.detail.substr(0, 400) + "..." : r.detail;
    const json* deviation = known.contains(name) ? &known[name] : nullptr;
    if (deviation != nullptr && r.outcome == Outcome::kFail &&
        r.detail.rfind("output " + std::to_string(deviation->value("output", -1)) + " ", 0) == 0) {
      ++known_failures;
      std::cout << "XFAIL " << name << ": " << detail << " (known: " << deviation->value("reason", "") << ")\n";
      continue;
    }
    if (deviation != nullptr && r.outcome == Outcome::kPass) std::cout << "XPASS " << name << ": listed as known\n";
    switch (r.outcome) {
      case Outcome::kPass: ++passed; std::cout << "PASS " << name << " (" << static_cast<int>(ms) << " ms)\n"; break;
      case Outcome::kFail: ++failed; std::cout << "FAIL " << name << ": " << detail << "\n"; break;
      case Outcome::kSkip: ++skipped; std::cout << "SKIP " << name << ": " << detail << "\n"; break;
    }
  }
  std::cout << "conformance: " << passed << " passed, " << failed << " failed, " << known_failures
            << " known deviations, " << skipped << " skipped, " << cases.size() << " total\n";
  return (failed > 0 || (strict && skipped > 0)) ? 1 : 0;
}
