#include "ops/registry.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "tflite_generated.h"

namespace edgerun {
namespace ops {

#define EDGERUN_OP(name, code) OpRegistration Register##name();
#define EDGERUN_CUSTOM_OP(name) OpRegistration Register##name();
#include "ops/builtin_ops.inc"
#undef EDGERUN_OP
#undef EDGERUN_CUSTOM_OP

const std::vector<BuiltinEntry>& BuiltinTable() {
  static const std::vector<BuiltinEntry> table = {
#define EDGERUN_OP(name, code) {tflite::BuiltinOperator_##code, &Register##name},
#define EDGERUN_CUSTOM_OP(name)
#include "ops/builtin_ops.inc"
#undef EDGERUN_OP
#undef EDGERUN_CUSTOM_OP
  };
  return table;
}

namespace {

// A registration built on first use. Never destroyed: interpreters with static storage duration
// may still free op state through it at exit.
struct LazyRegistration {
  std::once_flag once;
  const OpRegistration* registration = nullptr;
};

struct LazyTable {
  std::vector<int> index_of_code;  // builtin code -> position in BuiltinTable(), -1 if none
  std::unique_ptr<LazyRegistration[]> slots;
};

const LazyTable& TheLazyTable() {
  static const LazyTable* table = [] {
    auto* t = new LazyTable;
    const auto& entries = BuiltinTable();
    int32_t max_code = 0;
    for (const BuiltinEntry& e : entries) max_code = std::max(max_code, e.code);
    t->index_of_code.assign(static_cast<size_t>(max_code) + 1, -1);
    for (size_t i = 0; i < entries.size(); ++i) t->index_of_code[entries[i].code] = static_cast<int>(i);
    t->slots = std::make_unique<LazyRegistration[]>(entries.size());
    return t;
  }();
  return *table;
}

}  // namespace

const OpRegistration* BuiltinRegistration(int32_t code) {
  const LazyTable& table = TheLazyTable();
  if (code < 0 || static_cast<size_t>(code) >= table.index_of_code.size()) return nullptr;
  const int i = table.index_of_code[code];
  if (i < 0) return nullptr;
  LazyRegistration& slot = table.slots[i];
  std::call_once(slot.once, [&] { slot.registration = new OpRegistration(BuiltinTable()[i].make()); });
  return slot.registration;
}

const std::vector<OpRegistration>& BuiltinRegistrations() {
  static const std::vector<OpRegistration> all = [] {
    std::vector<OpRegistration> list;
    for (const BuiltinEntry& e : BuiltinTable()) list.push_back(*BuiltinRegistration(e.code));
    return list;
  }();
  return all;
}

const std::vector<OpRegistration>& CustomRegistrations() {
  static const std::vector<OpRegistration> all = [] {
    std::vector<OpRegistration> list;
#define EDGERUN_OP(name, code)
#define EDGERUN_CUSTOM_OP(name) list.push_back(Register##name());
#include "ops/builtin_ops.inc"
#undef EDGERUN_OP
#undef EDGERUN_CUSTOM_OP
    return list;
  }();
  return all;
}

}  // namespace ops

struct BuiltinOpResolver::Impl {
  std::unordered_map<int32_t, OpRegistration> builtins;  // AddBuiltin's replacements only
  std::map<std::string, OpRegistration> customs;
};

BuiltinOpResolver::BuiltinOpResolver() : impl_(std::make_unique<Impl>()) {
  for (const OpRegistration& r : ops::CustomRegistrations()) impl_->customs[r.name] = r;
}

BuiltinOpResolver::~BuiltinOpResolver() = default;

static const OpRegistration* CheckVersion(const OpRegistration& r, int version, std::string* why) {
  if (version >= r.min_version && version <= r.max_version) return &r;
  if (why) {
    *why = r.min_version == r.max_version
               ? StrCat("version ", version, " is not supported (edgerun implements version ", r.min_version, ")")
               : StrCat("version ", version, " is not supported (edgerun implements versions ", r.min_version, "-",
                        r.max_version, ")");
  }
  return nullptr;
}

const OpRegistration* BuiltinOpResolver::FindBuiltin(int32_t code, int version, std::string* why) const {
  auto it = impl_->builtins.find(code);
  const OpRegistration* r = it != impl_->builtins.end() ? &it->second : ops::BuiltinRegistration(code);
  if (r == nullptr) {
    if (why) *why = StrCat("edgerun has no kernel for builtin op ", BuiltinOpName(code), " (code ", code, ")");
    return nullptr;
  }
  return CheckVersion(*r, version, why);
}

const OpRegistration* BuiltinOpResolver::FindCustom(const std::string& name, int version, std::string* why) const {
  auto it = impl_->customs.find(name);
  if (it == impl_->customs.end()) {
    if (why) {
      *why = StrCat("custom op '", name,
                    "' is not registered (register a kernel with BuiltinOpResolver::AddCustom, or "
                    "TfLiteInterpreterOptionsAddCustomOp in C)");
    }
    return nullptr;
  }
  return CheckVersion(it->second, version, why);
}

void BuiltinOpResolver::AddCustom(OpRegistration registration) {
  registration.builtin_code = -1;
  const std::string name = registration.name;
  impl_->customs[name] = std::move(registration);
}

void BuiltinOpResolver::AddBuiltin(OpRegistration registration) {
  const int32_t code = registration.builtin_code;
  impl_->builtins[code] = std::move(registration);
}

}  // namespace edgerun
