// Model: a verified, read-only .tflite file. Weights are used in place (the file is mapped, not
// copied), and one Model can be shared by many interpreters on many threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "edgerun/status.h"

namespace tflite {
struct Model;  // generated from schema/tflite.fbs
}

namespace edgerun {

class Model {
 public:
  // Maps the file and verifies it. Errors name the file and what is wrong where.
  static Result<std::shared_ptr<const Model>> FromFile(const std::string& path);
  // Uses the caller's memory without copying it: it must outlive the model and every
  // interpreter built from it. Memory that is not 16-byte aligned is copied.
  static Result<std::shared_ptr<const Model>> FromBuffer(const void* data, size_t size,
                                                          std::string name = "<buffer>");
  // Copies the bytes first; the caller's memory may be freed afterwards.
  static Result<std::shared_ptr<const Model>> FromBufferCopy(const void* data, size_t size,
                                                              std::string name = "<buffer>");

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  // The file path, or the name given to FromBuffer: used in every error message.
  const std::string& name() const { return name_; }
  const tflite::Model* fb() const { return root_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  uint32_t version() const;
  std::string description() const;
  int num_subgraphs() const;

  // Bytes of buffer `index` (inside the FlatBuffer, or after it via Buffer.offset/size).
  // An empty buffer gives {nullptr, 0}. The index must be valid (the loader checked it).
  struct Bytes {
    const uint8_t* data = nullptr;
    size_t size = 0;
  };
  Bytes buffer(uint32_t index) const;

  // Metadata entries (name -> buffer), e.g. "min_runtime_version", "TFLITE_METADATA".
  std::vector<std::string> metadata_names() const;
  bool metadata(const std::string& name, Bytes* bytes) const;

  // Total bytes of constant data referenced by tensors (the weights).
  size_t weight_bytes() const;

  // Subgraphs in the longest chain of calls through control-flow ops (WHILE, IF, CALL_ONCE,
  // STABLEHLO_COMPOSITE, ...) starting anywhere: 1 when no op calls a subgraph.
  int subgraph_nesting() const { return subgraph_nesting_; }

  // Lets the operating system drop this process's resident pages of [data, data + bytes) when
  // they lie in the model's file mapping (FromFile): a delegate that packed weights into memory
  // of its own calls this so that the file's pages and their packed copies are not both counted
  // against the process. Touching the bytes again reads them back from the file, so this is
  // safe at any time and with other threads reading. Models in memory (FromBuffer) are left
  // alone. Returns the bytes released.
  size_t ReleaseResidentPages(const void* data, size_t bytes) const;
  // The same for many [begin, end) ranges: one release (a TLB flush) per run of ranges that lie
  // at most a page apart, and bytes between the ranges stay readable without bringing the
  // ranges back (see model.cc).
  size_t ReleaseResidentPages(std::vector<std::pair<const uint8_t*, const uint8_t*>> ranges) const;

 private:
  Model() = default;
  static Result<std::shared_ptr<const Model>> Finish(std::unique_ptr<Model> model);
  Status Validate();

  std::string name_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // munmap on destruction
  size_t mapping_size_ = 0;
  std::unique_ptr<uint8_t[]> copy_;  // FromBufferCopy / unaligned FromBuffer
  uint8_t* copy_aligned_ = nullptr;
  const tflite::Model* root_ = nullptr;
  int subgraph_nesting_ = 1;
  // Mappings (VMAs) that ReleaseResidentPages split off the file mapping so far; bounded, since
  // the process's map count is (vm.max_map_count, 65530 by default).
  mutable std::atomic<int> split_mappings_{0};
};

}  // namespace edgerun
