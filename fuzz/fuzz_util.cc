#include "fuzz/fuzz_util.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <streambuf>

#include "core/subgraph.h"
#include "tools/cli.h"

namespace edgerun::fuzz {

InterpreterOptions FuzzOptions() {
  InterpreterOptions options;
  options.max_tensor_bytes = size_t{4} << 20;
  options.max_arena_bytes = size_t{32} << 20;
  options.max_while_iterations = 1000;
  return options;
}

uint64_t Hash(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

namespace {

uint64_t Next(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c == EOF ? 0 : c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

}  // namespace

void FillInputs(Subgraph& subgraph, uint64_t seed) {
  uint64_t state = seed;
  for (int index : subgraph.inputs()) {
    Tensor* t = subgraph.tensor(index);
    if (t->type == TensorType::kString) {
      // As many strings as the shape says (the ops were prepared for it).
      const int64_t count = t->num_elements();
      if (count < 0 || count > 4096) continue;
      std::vector<std::string> strings(static_cast<size_t>(count));
      for (auto& s : strings) s.assign(Next(&state) % 8, static_cast<char>('a' + Next(&state) % 26));
      const std::vector<uint8_t> bytes = WriteStringTensor(strings);
      if (!t->owned.Reserve(bytes.size())) continue;
      std::memcpy(t->owned.data(), bytes.data(), bytes.size());
      t->data = t->owned.data();
      t->bytes = bytes.size();
      continue;
    }
    if (t->data == nullptr || t->bytes == 0 || t->is_constant() || !IsFixedSizeType(t->type)) continue;
    auto* p = static_cast<uint8_t*>(t->data);
    const uint64_t mode = Next(&state) % 4;
    const size_t element = std::max<size_t>(1, TensorTypeSize(t->type));
    for (size_t i = 0; i < t->bytes; ++i) {
      if (mode == 0) {
        p[i] = static_cast<uint8_t>(Next(&state));  // raw bits: NaN, infinities, huge indices
      } else if (mode == 1) {
        p[i] = i % element == 0 ? static_cast<uint8_t>(Next(&state) % 4) : 0;  // small non-negative values
      } else if (mode == 2) {
        p[i] = i % element == 0 ? static_cast<uint8_t>(Next(&state) % 16) : 0;
      } else {
        p[i] = 0;
      }
    }
    if (t->type == TensorType::kBool) {
      for (size_t i = 0; i < t->bytes; ++i) p[i] &= 1;
    }
    if ((t->type == TensorType::kFloat32) && mode != 0) {
      // Small integers as floats: valid sizes and indices for ops that take them as float.
      auto* f = static_cast<float*>(t->data);
      for (size_t i = 0; i < t->bytes / 4; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &f[i], 4);
        f[i] = static_cast<float>(bits & 0xff) * 0.25f - 1.0f;
      }
    }
  }
}

void AllocateAndInvoke(Subgraph& subgraph, uint64_t seed) {
  if (!subgraph.AllocateTensors().ok()) return;
  for (int round = 0; round < 2; ++round) {
    FillInputs(subgraph, seed + round);
    if (!subgraph.Invoke().ok()) return;
  }
}

std::string MemoryFile(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("edgerun-fuzz", 0);
  if (fd < 0) return "/nonexistent";
  if (ftruncate(fd, 0) != 0) return "/nonexistent";
  size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) return "/nonexistent";
    done += static_cast<size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

int RunCli(const std::vector<std::string>& args) {
  static NullBuffer null;
  std::streambuf* out = std::cout.rdbuf(&null);
  std::streambuf* err = std::cerr.rdbuf(&null);
  int rc = tools::kExitUsage;
  if (!args.empty()) {
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "inspect") rc = tools::RunInspect(rest);
    if (args[0] == "run") rc = tools::RunRun(rest);
  }
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
  return rc;
}

}  // namespace edgerun::fuzz
