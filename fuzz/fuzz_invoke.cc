// Fuzz target 2: load + allocate + invoke with inputs derived from the bytes (raw bits, small
// integers or zeros), twice (state carries over), then every signature; one input in four
// also goes through `edgerun run`.
#include <cstdint>
#include <string>

#include "core/subgraph.h"
#include "edgerun/interpreter.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace edgerun;
  const uint64_t seed = fuzz::Hash(data, size);
  auto model = Model::FromBufferCopy(data, size, "fuzz");
  if (!model.ok()) return 0;
  InterpreterOptions options = fuzz::FuzzOptions();
  options.num_threads = seed % 8 == 0 ? 2 : 1;
  auto interpreter = Interpreter::Create(*model, options);
  if (!interpreter.ok()) return 0;
  Interpreter& in = **interpreter;
  fuzz::AllocateAndInvoke(*in.subgraph(0), seed);
  for (const std::string& key : in.signature_keys()) {
    SignatureRunner* runner = in.GetSignatureRunner(key);
    fuzz::AllocateAndInvoke(*in.subgraph(runner->subgraph_index()), seed ^ 0x5151);
  }
  (void)in.ResetVariableTensors();
  if (seed % 4 == 0) {
    const std::string path = fuzz::MemoryFile(data, size);
    fuzz::RunCli({"run", path, "--seed", std::to_string(seed % 1000), "--json", "--max-tensor-bytes", "4M",
                  "--max-memory", "32M", "--max-while-iterations", "1000"});
  }
  return 0;
}
