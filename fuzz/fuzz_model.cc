// Fuzz target 1: load + verify + inspect. Any byte string goes through the loader (both the
// mapped-file and the in-memory paths), then everything `edgerun inspect` reads, including
// building the interpreter and planning its memory.
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/subgraph.h"
#include "edgerun/interpreter.h"
#include "fuzz/fuzz_util.h"
#include "tflite_generated.h"

namespace edgerun::fuzz {
namespace {

// Reads what a tool would show about a loaded model.
void Inspect(const Model& model) {
  (void)model.version();
  (void)model.description();
  (void)model.weight_bytes();
  for (const std::string& name : model.metadata_names()) {
    Model::Bytes bytes;
    if (model.metadata(name, &bytes) && bytes.size > 0) (void)Hash(bytes.data, bytes.size);
  }
  BuiltinOpResolver resolver;
  const tflite::Model& fb = *model.fb();
  for (int s = 0; s < model.num_subgraphs(); ++s) {
    const auto* ops = fb.subgraphs()->Get(s)->operators();
    if (ops == nullptr) continue;
    for (const auto* op : *ops) {
      const auto* code = fb.operator_codes()->Get(op->opcode_index());
      std::string why;
      (void)resolver.FindBuiltin(code->builtin_code(), code->version(), &why);
    }
  }
}

}  // namespace
}  // namespace edgerun::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgerun;
  // In memory (copied, so the bytes are 64-byte aligned) and, for the command line, as a file.
  auto model = Model::FromBufferCopy(data, size, "fuzz");
  if (model.ok()) {
    fuzz::Inspect(**model);
    auto interpreter = Interpreter::Create(*model, fuzz::FuzzOptions());
    if (interpreter.ok()) {
      Interpreter& in = **interpreter;
      (void)in.AllocateTensors();
      for (const std::string& key : in.signature_keys()) {
        SignatureRunner* runner = in.GetSignatureRunner(key);
        for (const std::string& name : runner->input_names()) (void)runner->input(name);
        (void)runner->AllocateTensors();
      }
      (void)in.arena_bytes();
      (void)in.persistent_bytes();
    }
  }
  // An unaligned copy goes through FromBuffer's copying path.
  std::unique_ptr<uint8_t[]> unaligned(new uint8_t[size + 1]);
  if (size > 0) std::memcpy(unaligned.get() + 1, data, size);
  (void)Model::FromBuffer(unaligned.get() + 1, size, "fuzz-unaligned");
  // The command line itself, text and JSON.
  const std::string path = fuzz::MemoryFile(data, size);
  fuzz::RunCli({"inspect", path, "--max-tensor-bytes", "4M", "--max-memory", "32M"});
  fuzz::RunCli({"inspect", path, "--json", "--max-tensor-bytes", "4M", "--max-memory", "32M"});
  return 0;
}
