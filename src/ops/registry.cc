#include "ops/registry.h"

#include <map>
#include <unordered_map>

namespace edgerun {
namespace ops {

#define EDGERUN_OP(name) OpRegistration Register##name();
#define EDGERUN_CUSTOM_OP(name) OpRegistration Register##name();
#include "ops/builtin_ops.inc"
#undef EDGERUN_OP
#undef EDGERUN_CUSTOM_OP

const std::vector<OpRegistration>& BuiltinRegistrations() {
  static const std::vector<OpRegistration> all = [] {
    std::vector<OpRegistration> list;
#define EDGERUN_OP(name) list.push_back(Register##name());
#define EDGERUN_CUSTOM_OP(name)
#include "ops/builtin_ops.inc"
#undef EDGERUN_OP
#undef EDGERUN_CUSTOM_OP
    return list;
  }();
  return all;
}

const std::vector<OpRegistration>& CustomRegistrations() {
  static const std::vector<OpRegistration> all = [] {
    std::vector<OpRegistration> list;
#define EDGERUN_OP(name)
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
  std::unordered_map<int32_t, OpRegistration> builtins;
  std::map<std::string, OpRegistration> customs;
};

BuiltinOpResolver::BuiltinOpResolver() : impl_(std::make_unique<Impl>()) {
  for (const OpRegistration& r : ops::BuiltinRegistrations()) impl_->builtins[r.builtin_code] = r;
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
  if (it == impl_->builtins.end()) {
    if (why) *why = StrCat("edgerun has no kernel for builtin op ", BuiltinOpName(code), " (code ", code, ")");
    return nullptr;
  }
  return CheckVersion(it->second, version, why);
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
