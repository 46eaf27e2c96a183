// edgerun inspect MODEL [--json] [--delegate xnnpack|none] [resource limits]
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/subgraph.h"
#include "edgerun/interpreter.h"
#include "model/flatbuffer_read.h"
#include "tflite_generated.h"
#include "tools/cli.h"

namespace edgerun::tools {
namespace {

const char kInspectUsage[] =
    "usage: edgerun inspect MODEL [--json] [--delegate xnnpack|none]\n"
    "  Prints the model's version, description, subgraphs with their inputs and outputs, the ops\n"
    "  it uses (with versions), signatures, metadata, weight bytes, the activation arena after\n"
    "  allocation, and any ops edgerun does not support. Exit code 1 when the model cannot run.\n"
    "  --delegate xnnpack  also apply XNNPACK (as `run` does by default) and show the partitions:\n"
    "                      which ops it runs, and why it refused each of the others.\n"
    "resource limits (exceeding one is an error):\n";

const char* InspectUsage() {
  static const std::string usage = std::string(kInspectUsage) + kLimitUsage;
  return usage.c_str();
}

using nlohmann::json;

json TensorJson(const Tensor& t, int index) {
  json j = {{"index", index}, {"name", t.name}, {"dtype", TensorTypeName(t.type)}, {"shape", t.shape}};
  if (!t.shape_signature.empty()) j["shape_signature"] = t.shape_signature;
  if (!t.quantization.empty()) {
    j["quantization"] = {{"scale", t.quantization.scale},
                         {"zero_point", t.quantization.zero_point},
                         {"quantized_dimension", t.quantization.quantized_dimension}};
  }
  return j;
}

// "0-11, 13, 15-20"
std::string Ranges(const std::vector<int>& nodes) {
  std::string s;
  for (size_t i = 0; i < nodes.size();) {
    size_t j = i;
    while (j + 1 < nodes.size() && nodes[j + 1] == nodes[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += j == i ? std::to_string(nodes[i]) : StrCat(nodes[i], "-", nodes[j]);
    i = j + 1;
  }
  return s;
}

std::string TensorList(Subgraph& sg, const std::vector<int>& tensors) {
  std::string s;
  for (int t : tensors) {
    if (sg.tensor(t)->is_constant()) continue;
    s += StrCat(s.empty() ? "" : ", ", "'", sg.tensor(t)->name, "' (", t, ")");
  }
  return s.empty() ? "none" : s;
}

// The execution plan of one allocated subgraph: delegated partitions and builtin nodes, in order.
json DelegationJson(Subgraph& sg) {
  const DelegationReport& report = sg.delegation();
  json steps = json::array();
  for (int n : sg.execution_plan()) {
    const Node& node = sg.nodes()[n];
    if (!node.delegated_nodes.empty()) {
      json ops = json::object();
      for (int m : node.delegated_nodes) ops[sg.nodes()[m].name] = ops.value(sg.nodes()[m].name, 0) + 1;
      steps.push_back({{"delegate", node.name.substr(0, node.name.find('('))},
                       {"name", node.name},
                       {"nodes", node.delegated_nodes},
                       {"ops", ops},
                       {"inputs", node.inputs},
                       {"outputs", node.outputs}});
    } else {
      json refusals = json::array();
      if (n < static_cast<int>(report.nodes.size())) {
        for (const auto& [delegate, why] : report.nodes[n].refusals) refusals.push_back({{"delegate", delegate}, {"why", why}});
      }
      json step = {{"node", n}, {"op", node.name}, {"refused_by", refusals}};
      if (node.folded) step["folded"] = true;  // computed by AllocateTensors, not at Invoke
      steps.push_back(step);
    }
  }
  int delegated = 0;
  for (const auto& p : report.partitions) delegated += static_cast<int>(p.partition.nodes.size());
  return {{"subgraph", sg.index()},
          {"ops", sg.num_model_nodes()},
          {"delegated_ops", delegated},
          {"partitions", report.partitions.size()},
          {"steps", steps}};
}

void PrintDelegation(Subgraph& sg, const json& j) {
  std::cout << "delegation, subgraph " << sg.index() << ": " << j["delegated_ops"] << " of " << j["ops"]
            << " ops in " << j["partitions"] << " partition" << (j["partitions"] == 1 ? "" : "s") << "\n";
  for (const json& step : j["steps"]) {
    if (step.contains("delegate")) {
      std::string ops;
      for (const auto& [op, count] : step["ops"].items()) ops += StrCat(ops.empty() ? "" : ", ", op, " x", count.get<int>());
      std::cout << "  " << step["name"].get<std::string>() << ": ops " << Ranges(step["nodes"].get<std::vector<int>>())
                << " (" << ops << ")\n"
                << "      in: " << TensorList(sg, step["inputs"].get<std::vector<int>>())
                << "; out: " << TensorList(sg, step["outputs"].get<std::vector<int>>()) << "\n";
    } else {
      if (step.value("folded", false)) {
        std::cout << "  op " << step["node"] << " " << step["op"].get<std::string>()
                  << ": folded (computed once by AllocateTensors)\n";
        continue;
      }
      std::cout << "  op " << step["node"] << " " << step["op"].get<std::string>() << ": builtin";
      for (const json& r : step["refused_by"]) {
        std::cout << " (" << r["delegate"].get<std::string>() << ": " << r["why"].get<std::string>() << ")";
      }
      std::cout << "\n";
    }
  }
}

std::string TensorLine(const Tensor& t) {
  std::string s = StrCat("'", t.name, "' ", TensorTypeName(t.type), ShapeToString(t.shape));
  if (!t.shape_signature.empty() && t.shape_signature != t.shape) s += " signature " + ShapeToString(t.shape_signature);
  const std::string q = QuantizationText(t.quantization);
  if (!q.empty()) s += " (" + q + ")";
  return s;
}

}  // namespace

int RunInspect(const std::vector<std::string>& args) {
  std::string path;
  bool as_json = false;
  InterpreterOptions options = DefaultCliOptions();
  options.use_xnnpack = false;
  double timeout_seconds = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string error;
    if (const int limit = ParseLimitFlag(args, &i, &options, &timeout_seconds, &error); limit != 0) {
      if (limit < 0) return UsageError("inspect", error, InspectUsage());
    } else if (a == "--json") {
      as_json = true;
    } else if (a == "--delegate") {
      if (i + 1 >= args.size() || !ParseDelegateName(args[++i], &options.use_xnnpack)) {
        return UsageError("inspect", "--delegate needs xnnpack or none", InspectUsage());
      }
    } else if (a == "--help" || a == "-h") {
      std::cout << InspectUsage();
      return kExitOk;
    } else if (!a.empty() && a[0] == '-') {
      return UsageError("inspect", "unknown option " + a, InspectUsage());
    } else if (path.empty()) {
      path = a;
    } else {
      return UsageError("inspect", "more than one model given", InspectUsage());
    }
  }
  if (path.empty()) return UsageError("inspect", "no model given", InspectUsage());
  if (options.use_xnnpack && !XnnpackAvailable()) {
    return Fail("this edgerun was built without XNNPACK (libxnnpack-dev)");
  }
  StartWatchdog(timeout_seconds, path);

  auto model = Model::FromFile(path);
  if (!model.ok()) return Fail(model.status().message());
  const Model& m = **model;
  const tflite::Model& fb = *m.fb();

  json report;
  report["model"] = path;
  report["file_bytes"] = m.size();
  report["schema_version"] = m.version();
  report["description"] = m.description();
  report["weight_bytes"] = m.weight_bytes();

  // Ops: histogram over all subgraphs, and which ones the resolver cannot run.
  BuiltinOpResolver resolver;
  std::map<std::string, int> histogram;
  std::map<std::string, std::string> unsupported;
  for (int s = 0; s < m.num_subgraphs(); ++s) {
    const auto* sg = fb.subgraphs()->Get(s);
    if (!sg->operators()) continue;
    for (const auto* op : *sg->operators()) {
      const auto* code = fb.operator_codes()->Get(op->opcode_index());
      const int32_t builtin = std::max<int32_t>(code->builtin_code(), code->deprecated_builtin_code());
      const int version = std::max(1, code->version());
      std::string name, why;
      const OpRegistration* found;
      if (builtin == tflite::BuiltinOperator_CUSTOM) {
        name = StrCat("custom:", code->custom_code() ? code->custom_code()->str() : "");
        found = resolver.FindCustom(code->custom_code() ? code->custom_code()->str() : "", version, &why);
      } else {
        name = BuiltinOpName(builtin);
        found = resolver.FindBuiltin(builtin, version, &why);
      }
      const std::string key = StrCat(name, " v", version);
      ++histogram[key];
      if (!found) unsupported[key] = why;
    }
  }

  // Build and allocate to learn the arena size (and whether the model can run at all).
  std::string run_error;
  size_t arena_bytes = 0;
  auto interpreter = Interpreter::Create(*model, resolver, options);
  if (!interpreter.ok()) {
    run_error = interpreter.status().message();
  } else {
    Status st = (*interpreter)->AllocateTensors();
    if (!st.ok()) run_error = st.message();
    else arena_bytes = (*interpreter)->arena_bytes();
  }

  json subgraphs = json::array();
  for (int s = 0; s < m.num_subgraphs(); ++s) {
    const auto* sg = fb.subgraphs()->Get(s);
    json j = {{"index", s},
              {"name", sg->name() ? sg->name()->str() : ""},
              {"tensors", sg->tensors() ? sg->tensors()->size() : 0},
              {"ops", sg->operators() ? sg->operators()->size() : 0}};
    json ins = json::array(), outs = json::array();
    if (interpreter.ok()) {
      Subgraph* sub = (*interpreter)->subgraph(s);
      for (int i : sub->inputs()) ins.push_back(TensorJson(*sub->tensor(i), i));
      for (int i : sub->outputs()) outs.push_back(TensorJson(*sub->tensor(i), i));
    } else {
      // Without an interpreter, read the tensors from the file directly.
      auto from_file = [&](int i) {
        const auto* t = sg->tensors()->Get(i);
        Tensor tensor;
        tensor.name = t->name() ? t->name()->str() : "";
        tensor.type = static_cast<TensorType>(t->type());
        if (t->shape()) tensor.shape.assign(t->shape()->begin(), t->shape()->end());
        if (t->shape_signature()) tensor.shape_signature.assign(t->shape_signature()->begin(), t->shape_signature()->end());
        if (t->quantization() && t->quantization()->scale()) {
          tensor.quantization.scale.assign(t->quantization()->scale()->begin(), t->quantization()->scale()->end());
          if (t->quantization()->zero_point()) {
            tensor.quantization.zero_point = ReadInt64Vector(t->quantization()->zero_point());
          }
          tensor.quantization.quantized_dimension = t->quantization()->quantized_dimension();
        }
        return TensorJson(tensor, i);
      };
      if (sg->inputs()) for (int i : *sg->inputs()) ins.push_back(from_file(i));
      if (sg->outputs()) for (int i : *sg->outputs()) outs.push_back(from_file(i));
    }
    j["inputs"] = ins;
    j["outputs"] = outs;
    subgraphs.push_back(j);
  }
  report["subgraphs"] = subgraphs;

  json ops = json::array();
  for (const auto& [key, count] : histogram) ops.push_back({{"op", key}, {"count", count}});
  report["ops"] = ops;

  json signatures = json::array();
  if (fb.signature_defs()) {
    for (const auto* sig : *fb.signature_defs()) {
      json j = {{"key", sig->signature_key() ? sig->signature_key()->str() : ""}, {"subgraph", sig->subgraph_index()}};
      json ins = json::object(), outs = json::object();
      if (sig->inputs()) for (const auto* t : *sig->inputs()) ins[t->name() ? t->name()->str() : ""] = t->tensor_index();
      if (sig->outputs()) for (const auto* t : *sig->outputs()) outs[t->name() ? t->name()->str() : ""] = t->tensor_index();
      j["inputs"] = ins;
      j["outputs"] = outs;
      signatures.push_back(j);
    }
  }
  report["signatures"] = signatures;

  json metadata = json::array();
  for (const std::string& name : m.metadata_names()) {
    Model::Bytes bytes;
    m.metadata(name, &bytes);
    metadata.push_back({{"name", name}, {"bytes", bytes.size}});
  }
  report["metadata"] = metadata;
  json missing = json::array();
  for (const auto& [key, why] : unsupported) missing.push_back({{"op", key}, {"why", why}});
  report["unsupported_ops"] = missing;
  if (run_error.empty()) report["arena_bytes"] = arena_bytes;
  else report["error"] = run_error;
  json delegation = json::array();
  if (options.use_xnnpack && interpreter.ok()) {
    // Every subgraph that AllocateTensors reached (control-flow bodies are allocated with it).
    for (int s = 0; s < (*interpreter)->num_subgraphs(); ++s) {
      Subgraph* sub = (*interpreter)->subgraph(s);
      if (sub->needs_allocation() || sub->num_model_nodes() == 0) continue;
      delegation.push_back(DelegationJson(*sub));
    }
    report["delegation"] = delegation;
  }

  if (as_json) {
    // Names in a file need not be UTF-8: replace bad bytes rather than throw.
    std::cout << report.dump(1, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "model: " << path << " (" << m.size() << " bytes, schema version " << m.version() << ")\n";
    if (!m.description().empty()) std::cout << "description: " << m.description() << "\n";
    for (int s = 0; s < m.num_subgraphs(); ++s) {
      const json& j = subgraphs[s];
      std::cout << "subgraph " << s;
      if (!j["name"].get<std::string>().empty()) std::cout << " '" << j["name"].get<std::string>() << "'";
      std::cout << ": " << j["tensors"] << " tensors, " << j["ops"] << " ops\n";
      for (const char* kind : {"inputs", "outputs"}) {
        int k = 0;
        for (const json& t : j[kind]) {
          Tensor tensor;
          tensor.name = t["name"];
          ParseTensorType(t["dtype"].get<std::string>(), &tensor.type);
          tensor.shape = t["shape"].get<Shape>();
          if (t.contains("shape_signature")) tensor.shape_signature = t["shape_signature"].get<Shape>();
          if (t.contains("quantization")) {
            tensor.quantization.scale = t["quantization"]["scale"].get<std::vector<float>>();
            tensor.quantization.zero_point = t["quantization"]["zero_point"].get<std::vector<int64_t>>();
            tensor.quantization.quantized_dimension = t["quantization"]["quantized_dimension"];
          }
          std::cout << "  " << (kind[0] == 'i' ? "input " : "output") << " " << k++ << ": " << TensorLine(tensor)
                    << "  (tensor " << t["index"] << ")\n";
        }
      }
    }
    std::cout << "ops:\n";
    for (const auto& [key, count] : histogram) std::cout << "  " << key << " x" << count << "\n";
    if (!signatures.empty()) {
      std::cout << "signatures:\n";
      for (const json& s : signatures) {
        std::cout << "  '" << s["key"].get<std::string>() << "' -> subgraph " << s["subgraph"] << ", inputs "
                  << s["inputs"].dump(-1, ' ', false, json::error_handler_t::replace) << ", outputs "
                  << s["outputs"].dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
      }
    }
    if (!metadata.empty()) {
      std::cout << "metadata:";
      for (const json& md : metadata) std::cout << " " << md["name"].get<std::string>() << " (" << md["bytes"] << " bytes)";
      std::cout << "\n";
    }
    std::cout << "weights: " << m.weight_bytes() << " bytes\n";
    if (run_error.empty()) std::cout << "arena: " << arena_bytes << " bytes (activations of subgraph 0)\n";
    for (const json& j : delegation) PrintDelegation(*(*interpreter)->subgraph(j["subgraph"].get<int>()), j);
    if (unsupported.empty()) {
      std::cout << "unsupported ops: none\n";
    } else {
      std::cout << "unsupported ops:\n";
      for (const auto& [key, why] : unsupported) std::cout << "  " << key << ": " << why << "\n";
    }
  }
  if (!run_error.empty()) return Fail("the model cannot run: " + run_error);
  return kExitOk;
}

}  // namespace edgerun::tools
