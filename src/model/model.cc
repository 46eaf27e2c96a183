// Loading and verifying .tflite files. Nothing reads the FlatBuffer before the verifier has
// accepted it; after that, Validate() checks every index and size against the file, so that the
// interpreter can trust what it reads.
#include "edgerun/model.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "core/block_memory.h"
#include "edgerun/op.h"
#include "edgerun/tensor.h"
#include "model/flatbuffer_read.h"
#include "edgerun/types.h"
#include "tflite_generated.h"

namespace edgerun {
namespace {

// The verifier walks nested tables recursively; real models are a few levels deep.
constexpr flatbuffers::uoffset_t kMaxVerifierDepth = 64;
constexpr flatbuffers::uoffset_t kMaxVerifierTables = 100'000'000;
constexpr uint32_t kSupportedSchemaVersion = 3;

template <class T>
uint32_t Size(const flatbuffers::Vector<T>* v) {
  return v ? v->size() : 0;
}

std::string TensorLabel(int subgraph, int index, const tflite::Tensor* t) {
  std::string s = StrCat("subgraph ", subgraph, ", tensor ", index);
  if (t && t->name()) s += StrCat(" '", t->name()->string_view(), "'");
  return s;
}


// Subgraphs nest through control-flow ops; each level costs stack in prepare and invoke, so the
// depth of the call graph is bounded (InterpreterOptions::max_subgraph_depth has the same default).
constexpr int kMaxSubgraphNesting = 64;

// Values of a sparse index vector (int32, uint16 or uint8), or false when it is absent.
bool ReadSparseIndices(tflite::SparseIndexVector type, const void* table, std::vector<int64_t>* out) {
  out->clear();
  if (table == nullptr) return false;
  auto copy = [&](const auto* values) {
    if (values == nullptr) return false;
    out->assign(values->begin(), values->end());
    return true;
  };
  switch (type) {
    case tflite::SparseIndexVector_Int32Vector:
      return copy(static_cast<const tflite::Int32Vector*>(table)->values());
    case tflite::SparseIndexVector_Uint16Vector:
      return copy(static_cast<const tflite::Uint16Vector*>(table)->values());
    case tflite::SparseIndexVector_Uint8Vector:
      return copy(static_cast<const tflite::Uint8Vector*>(table)->values());
    default:
      return false;
  }
}

// TFLite's sparse format (TACO): `traversal_order` lists the rank original dimensions, then one
// dimension per block (`block_map` names the original dimension each block splits). Level i of
// `dim_metadata` is DENSE (all dense_size positions) or SPARSE_CSR (array_segments into
// array_indices per position of the level above). The values of the last level are the buffer.
Status ValidateSparsity(const tflite::SparsityParameters& sp, const Shape& shape, TensorType type,
                        size_t data_bytes, bool has_data) {
  if (!has_data) return Status::Error("sparsity parameters on a tensor without constant data");
  const int rank = static_cast<int>(shape.size());
  const uint32_t num_blocks = Size(sp.block_map());
  const uint32_t levels = rank + num_blocks;
  if (num_blocks > static_cast<uint32_t>(rank)) {
    return Status::Errorf("sparsity: ", num_blocks, " block dimensions for rank ", rank);
  }
  if (Size(sp.traversal_order()) != levels || Size(sp.dim_metadata()) != levels) {
    return Status::Errorf("sparsity: traversal_order has ", Size(sp.traversal_order()), " entries and dim_metadata ",
                          Size(sp.dim_metadata()), ", expected ", levels, " (rank ", rank, " + ", num_blocks,
                          " blocks)");
  }
  std::vector<bool> seen(levels, false);
  for (uint32_t i = 0; i < levels; ++i) {
    const int32_t d = sp.traversal_order()->Get(i);
    // Original dimensions come first, then the block dimensions in block_map order.
    const bool ok = i < static_cast<uint32_t>(rank) ? (d >= 0 && d < rank) : d == static_cast<int32_t>(i);
    if (!ok || seen[d]) {
      return Status::Errorf("sparsity: traversal_order entry ", i, " is ", d, ", not a valid dimension order");
    }
    seen[d] = true;
  }
  std::vector<int64_t> size_of(levels);  // size of each expanded dimension
  for (int d = 0; d < rank; ++d) size_of[d] = shape[d];
  for (uint32_t k = 0; k < num_blocks; ++k) {
    const int32_t d = sp.block_map()->Get(k);
    if (d < 0 || d >= rank || (k > 0 && d <= sp.block_map()->Get(k - 1))) {
      return Status::Errorf("sparsity: block_map entry ", k, " is ", d, " (must increase, within rank ", rank, ")");
    }
    const tflite::DimensionMetadata* block = sp.dim_metadata()->Get(rank + k);
    if (block == nullptr || block->format() != tflite::DimensionType_DENSE || block->dense_size() <= 0 ||
        shape[d] % block->dense_size() != 0) {
      return Status::Errorf("sparsity: block ", k, " of dimension ", d, " must be dense with a size that divides ",
                            shape[d]);
    }
    size_of[rank + k] = block->dense_size();
    size_of[d] = shape[d] / block->dense_size();
  }
  // Walk the levels counting positions; the last level's positions are the stored values.
  const int64_t cap = static_cast<int64_t>(data_bytes) + 1;  // any more cannot match the buffer
  int64_t positions = 1;
  std::vector<int64_t> segments, indices;
  for (uint32_t i = 0; i < levels; ++i) {
    const tflite::DimensionMetadata* dm = sp.dim_metadata()->Get(i);
    if (dm == nullptr) return Status::Errorf("sparsity: dim_metadata ", i, " is null");
    const int64_t size = size_of[sp.traversal_order()->Get(i)];
    if (dm->format() == tflite::DimensionType_DENSE) {
      if (dm->dense_size() != size) {
        return Status::Errorf("sparsity: level ", i, " has dense_size ", dm->dense_size(), ", the dimension has ",
                              size);
      }
      positions = size == 0 ? 0 : std::min(cap, positions * size);
    } else if (dm->format() == tflite::DimensionType_SPARSE_CSR) {
      if (!ReadSparseIndices(dm->array_segments_type(), dm->array_segments(), &segments) ||
          !ReadSparseIndices(dm->array_indices_type(), dm->array_indices(), &indices)) {
        return Status::Errorf("sparsity: level ", i, " is SPARSE_CSR without array_segments and array_indices");
      }
      if (static_cast<int64_t>(segments.size()) != positions + 1) {
        return Status::Errorf("sparsity: level ", i, " has ", segments.size(), " segment entries, expected ",
                              positions + 1);
      }
      for (size_t k = 0; k < segments.size(); ++k) {
        if ((k == 0 && segments[k] != 0) || (k > 0 && segments[k] < segments[k - 1])) {
          return Status::Errorf("sparsity: level ", i, ": array_segments must start at 0 and not decrease");
        }
      }
      if (segments.back() != static_cast<int64_t>(indices.size())) {
        return Status::Errorf("sparsity: level ", i, ": array_segments ends at ", segments.back(), " but there are ",
                              indices.size(), " indices");
      }
      for (int64_t index : indices) {
        if (index < 0 || index >= size) {
          return Status::Errorf("sparsity: level ", i, ": index ", index, " outside dimension size ", size);
        }
      }
      positions = static_cast<int64_t>(indices.size());
    } else {
      return Status::Errorf("sparsity: level ", i, " has unknown format ", static_cast<int>(dm->format()));
    }
  }
  size_t expected = 0;
  if (!TensorBytes(type, positions, &expected) || expected != data_bytes) {
    return Status::Errorf("sparsity: the metadata describes ", positions, " stored values, the buffer has ",
                          data_bytes, " bytes of ", TensorTypeName(type));
  }
  return Status::Ok();
}

Status ValidateQuantization(const tflite::QuantizationParameters& q, const Shape& shape, TensorType type) {
  const uint32_t num_scales = Size(q.scale());
  const uint32_t num_zero_points = Size(q.zero_point());
  if (num_scales > 0 && num_zero_points > 0 && num_scales != num_zero_points) {
    return Status::Errorf("quantization has ", num_scales, " scales but ", num_zero_points, " zero points");
  }
  if (num_scales > 1) {
    const int32_t qdim = q.quantized_dimension();
    if (qdim < 0 || qdim >= static_cast<int32_t>(shape.size())) {
      return Status::Errorf("quantized_dimension ", qdim, " is outside shape ", ShapeToString(shape));
    }
    if (static_cast<int64_t>(num_scales) != shape[qdim]) {
      return Status::Errorf(num_scales, " per-channel scales for dimension ", qdim, " of shape ",
                            ShapeToString(shape));
    }
  }
  for (uint32_t i = 0; i < num_scales; ++i) {
    const float scale = q.scale()->Get(i);
    // Zero is tolerated (all-zero weight channels); kernels treat it as degenerate.
    if (!std::isfinite(scale) || scale < 0) {
      return Status::Errorf("quantization scale ", i, " is ", scale, " (must be finite and not negative)");
    }
  }
  if (num_scales > 0) {
    // Integer types that kernels rescale: a zero point outside the type overflows their arithmetic.
    int64_t lo = 0, hi = -1;
    if (type == TensorType::kInt8) lo = -128, hi = 127;
    if (type == TensorType::kUInt8) lo = 0, hi = 255;
    if (type == TensorType::kInt16) lo = -32768, hi = 32767;
    if (type == TensorType::kInt4) lo = -8, hi = 7;
    const std::vector<int64_t> zero_points = lo <= hi ? ReadInt64Vector(q.zero_point()) : std::vector<int64_t>();
    for (const int64_t zp : zero_points) {
      if (zp < lo || zp > hi) {
        return Status::Errorf("zero point ", zp, " is outside the range of ", TensorTypeName(type));
      }
    }
  }
  return Status::Ok();
}

// Subgraphs that op `op` (with builtin code `code`) calls, from its options.
std::vector<int64_t> CalledSubgraphs(int32_t code, const tflite::Operator& op) {
  std::vector<int64_t> called;
  switch (code) {
    case tflite::BuiltinOperator_WHILE:
      if (const auto* o = op.builtin_options_as_WhileOptions()) {
        called = {o->cond_subgraph_index(), o->body_subgraph_index()};
      }
      break;
    case tflite::BuiltinOperator_IF:
      if (const auto* o = op.builtin_options_as_IfOptions()) {
        called = {o->then_subgraph_index(), o->else_subgraph_index()};
      }
      break;
    case tflite::BuiltinOperator_CALL_ONCE:
      if (const auto* o = op.builtin_options_as_CallOnceOptions()) called = {o->init_subgraph_index()};
      break;
    case tflite::BuiltinOperator_STABLEHLO_COMPOSITE:
      if (const auto* o = op.builtin_options_2_as_StableHLOCompositeOptions()) {
        called = {o->decomposition_subgraph_index()};
      }
      break;
    case tflite::BuiltinOperator_STABLEHLO_WHILE:
      if (const auto* o = op.builtin_options_2_as_StablehloWhileOptions()) {
        called = {o->cond_subgraph_index(), o->body_subgraph_index()};
      }
      break;
    case tflite::BuiltinOperator_STABLEHLO_REDUCE:
      if (const auto* o = op.builtin_options_2_as_StablehloReduceOptions()) called = {o->body_subgraph_index()};
      break;
    case tflite::BuiltinOperator_STABLEHLO_REDUCE_WINDOW:
      if (const auto* o = op.builtin_options_2_as_StablehloReduceWindowOptions()) {
        called = {o->body_subgraph_index()};
      }
      break;
    case tflite::BuiltinOperator_STABLEHLO_SORT:
      if (const auto* o = op.builtin_options_2_as_StablehloSortOptions()) called = {o->comparator_subgraph_index()};
      break;
    case tflite::BuiltinOperator_STABLEHLO_SCATTER:
      if (const auto* o = op.builtin_options_2_as_StablehloScatterOptions()) {
        called = {o->update_computation_subgraph_index()};
      }
      break;
    case tflite::BuiltinOperator_STABLEHLO_CASE:
      if (const auto* o = op.builtin_options_2_as_StablehloCaseOptions(); o && o->branch_subgraph_indices()) {
        called.assign(o->branch_subgraph_indices()->begin(), o->branch_subgraph_indices()->end());
      }
      break;
    default:
      break;
  }
  return called;
}

// The call graph of the subgraphs must have no cycle (a subgraph may not call itself, directly or
// through others) and chains of at most kMaxSubgraphNesting calls. Iterative: a file may hold
// many thousands of subgraphs.
Status ValidateCallGraph(const std::vector<std::vector<int>>& calls, int* nesting) {
  const size_t n = calls.size();
  enum : uint8_t { kUnvisited, kOnStack, kDone };
  std::vector<uint8_t> state(n, kUnvisited);
  std::vector<int> depth(n, 1);  // subgraphs in the longest chain starting here
  std::vector<std::pair<int, size_t>> stack;  // (subgraph, next callee to visit)
  for (size_t root = 0; root < n; ++root) {
    if (state[root] != kUnvisited) continue;
    stack.push_back({static_cast<int>(root), 0});
    state[root] = kOnStack;
    while (!stack.empty()) {
      auto& [s, next] = stack.back();
      if (next < calls[s].size()) {
        const int callee = calls[s][next++];
        if (state[callee] == kOnStack) {
          return Status::Errorf("subgraph ", callee, " calls itself (directly or through other subgraphs) via "
                                "subgraph ", s, "; recursion is not allowed");
        }
        if (state[callee] == kUnvisited) {
          state[callee] = kOnStack;
          stack.push_back({callee, 0});
        }
        continue;
      }
      for (int callee : calls[s]) depth[s] = std::max(depth[s], depth[callee] + 1);
      if (depth[s] > kMaxSubgraphNesting) {
        return Status::Errorf("subgraph ", s, " starts a chain of ", depth[s], " nested subgraph calls (the limit is ",
                              kMaxSubgraphNesting, ")");
      }
      *nesting = std::max(*nesting, depth[s]);
      state[s] = kDone;
      stack.pop_back();
    }
  }
  return Status::Ok();
}

}  // namespace

// Above this, a mapped file's pages come in as they are read. Populated at once, all of a file is
// resident next to the packed copies its kernels make until the packing releases it, which is
// the peak of the first inference: synthetic ResNet-18 float (46.7 MB) peaked at 62.1-62.5 MiB
// with its whole file present at load, 60.5 without (load 3.1-4.8 -> 1.2-1.8 ms; the first
// inference, 66-122 ms either way, did not move beyond its noise).
constexpr uint64_t kPopulatedModelBytes = 32ull << 20;

Model::~Model() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_size_);
}

size_t Model::ReleaseResidentPages(const void* data, size_t bytes) const {
  if (mapping_ == nullptr || data == nullptr || bytes == 0) return 0;
  const auto base = reinterpret_cast<uintptr_t>(mapping_);
  const auto begin = reinterpret_cast<uintptr_t>(data);
  if (begin < base || begin - base >= mapping_size_ || bytes > mapping_size_ - (begin - base)) return 0;
  const auto* first = static_cast<const uint8_t*>(data);
  return ReleaseResidentPages({{first, first + bytes}});
}

size_t Model::ReleaseResidentPages(std::vector<std::pair<const uint8_t*, const uint8_t*>> ranges) const {
  if (mapping_ == nullptr) return 0;
  const auto base = reinterpret_cast<uintptr_t>(mapping_);
  ranges.erase(std::remove_if(ranges.begin(), ranges.end(),
                              [&](const ByteRange& r) {
                                const auto begin = reinterpret_cast<uintptr_t>(r.first);
                                const auto end = reinterpret_cast<uintptr_t>(r.second);
                                return begin >= end || begin < base || end - base > mapping_size_;
                              }),
               ranges.end());
  if (ranges.empty()) return 0;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  // Each range's whole pages first become a mapping (VMA) of their own, by MADV_RANDOM for its
  // side effect. Why: kernels from 6.18 map a whole large page-cache folio (up to 2 MiB) when any
  // byte of it is read, as far as the mapping reaches, so without the split, reading a bias next
  // to a released filter brought the filter back (synthetic float MobileNet v2: 11.6 of its
  // 13.3 MiB file stayed resident, peak RSS 35 MiB instead of 28). The pages a range shares with
  // other bytes stay in the file's mapping. MADV_RANDOM's own effect, no read-ahead when a
  // released page is read again, suits bytes that are not meant to be read again.
  constexpr int kMaxSplitMappings = 8192;
  // Ranges that touch are one (a filter released a panel of rows at a time): no one-page
  // mapping between them.
  for (const ByteRange& r : MergeByteRanges(ranges, 0)) {
    const uintptr_t first = (reinterpret_cast<uintptr_t>(r.first) + page - 1) / page * page;
    const uintptr_t last = reinterpret_cast<uintptr_t>(r.second) / page * page;
    if (first >= last || split_mappings_.fetch_add(2) >= kMaxSplitMappings) continue;
    madvise(reinterpret_cast<void*>(first), last - first, MADV_RANDOM);
  }
  // Then whole pages around the ranges go: a page shared with other bytes of the file is read
  // back from the page cache when they are next touched. The mapping is PROT_READ and
  // MAP_PRIVATE, so it holds no written copy that MADV_DONTNEED could throw away.
  size_t released = 0;
  for (const ByteRange& span : MergeByteRanges(std::move(ranges), /*gap=*/static_cast<ptrdiff_t>(page))) {
    const uintptr_t first = reinterpret_cast<uintptr_t>(span.first) / page * page;
    const uintptr_t last = (reinterpret_cast<uintptr_t>(span.second) + page - 1) / page * page;
    if (madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) == 0) released += last - first;
  }
  return released;
}

Result<std::shared_ptr<const Model>> Model::FromFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below as not regular).
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Status::Errorf(path, ": cannot open: ", std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return Status::Errorf(path, ": cannot stat: ", std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return Status::Errorf(path, ": not a regular file");
  }
  if (st.st_size == 0) {
    close(fd);
    return Status::Errorf(path, ": file is empty, not a TFLite model");
  }
  // Files up to kPopulatedModelBytes are mapped with their pages present: the verifier reads
  // tables all over the file and the first inference reads every weight, and on a virtual machine
  // each page fault is an exit to the hypervisor (coral MobileNet v2: 43 faults, 0.7 ms of a
  // 1.1 ms load; the whole 3.4 MiB mapped at once takes 0.1 ms). It costs no memory that a run
  // would not use: weights that kernels pack are released afterwards (ReleaseResidentPages).
  // Larger files are left to fault in, so that inspecting one does not read all of it.
  const bool populate = static_cast<uint64_t>(st.st_size) <= kPopulatedModelBytes;
  void* mapping = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0),
                       fd, 0);
  const int err = errno;
  close(fd);
  if (mapping == MAP_FAILED) return Status::Errorf(path, ": cannot map: ", std::strerror(err));
  auto model = std::unique_ptr<Model>(new Model());
  model->name_ = path;
  model->mapping_ = mapping;
  model->mapping_size_ = static_cast<size_t>(st.st_size);
  model->data_ = static_cast<const uint8_t*>(mapping);
  model->size_ = model->mapping_size_;
  return Finish(std::move(model));
}

Result<std::shared_ptr<const Model>> Model::FromBuffer(const void* data, size_t size,
                                                       std::string name) {
  if (data == nullptr || size == 0) return Status::Errorf(name, ": empty buffer, not a TFLite model");
  if (reinterpret_cast<uintptr_t>(data) % 16 != 0) return FromBufferCopy(data, size, std::move(name));
  auto model = std::unique_ptr<Model>(new Model());
  model->name_ = std::move(name);
  model->data_ = static_cast<const uint8_t*>(data);
  model->size_ = size;
  return Finish(std::move(model));
}

Result<std::shared_ptr<const Model>> Model::FromBufferCopy(const void* data, size_t size,
                                                           std::string name) {
  if (data == nullptr || size == 0) return Status::Errorf(name, ": empty buffer, not a TFLite model");
  auto model = std::unique_ptr<Model>(new Model());
  model->name_ = std::move(name);
  model->copy_ = std::unique_ptr<uint8_t[]>(new (std::nothrow) uint8_t[size + 64]);
  if (!model->copy_) return Status::Errorf(model->name_, ": out of memory copying ", size, " bytes");
  auto base = reinterpret_cast<uintptr_t>(model->copy_.get());
  model->copy_aligned_ = model->copy_.get() + ((64 - base % 64) % 64);
  std::memcpy(model->copy_aligned_, data, size);
  model->data_ = model->copy_aligned_;
  model->size_ = size;
  return Finish(std::move(model));
}

Result<std::shared_ptr<const Model>> Model::Finish(std::unique_ptr<Model> model) {
  const std::string& name = model->name_;
  if (model->size_ < 8) {
    return Status::Errorf(name, ": ", model->size_, " bytes is too short for a TFLite model");
  }
  if (!flatbuffers::BufferHasIdentifier(model->data_, tflite::ModelIdentifier())) {
    std::string id;
    for (int i = 4; i < 8; ++i) {
      const char c = static_cast<char>(model->data_[i]);
      id += (c >= 32 && c < 127) ? std::string(1, c) : StrCat("\\x", static_cast<int>(model->data_[i]));
    }
    return Status::Errorf(name, ": not a TFLite model (file identifier is '", id,
                          "', expected 'TFL3')");
  }
  // The FlatBuffer itself is at most 2 GB; weights may follow it (Buffer.offset).
  const size_t fb_size = std::min<size_t>(model->size_, FLATBUFFERS_MAX_BUFFER_SIZE - 1);
  flatbuffers::Verifier verifier(model->data_, fb_size, kMaxVerifierDepth, kMaxVerifierTables);
  if (!tflite::VerifyModelBuffer(verifier)) {
    return Status::Errorf(name, ": the FlatBuffer verifier rejected the file (truncated or "
                                "corrupted: an offset, vector length or table points outside ",
                          model->size_, " bytes)");
  }
  model->root_ = tflite::GetModel(model->data_);
  ER_RETURN_IF_ERROR(model->Validate().WithContext(name));
  return std::shared_ptr<const Model>(std::move(model));
}

Status Model::Validate() {
  const tflite::Model& m = *root_;
  if (m.version() != kSupportedSchemaVersion) {
    return Status::Errorf("schema version ", m.version(), " is not supported (edgerun reads version ",
                          kSupportedSchemaVersion, ")");
  }
  const uint32_t num_subgraphs = Size(m.subgraphs());
  if (num_subgraphs == 0) return Status::Error("the model has no subgraphs");
  const uint32_t num_buffers = Size(m.buffers());
  const uint32_t num_opcodes = Size(m.operator_codes());

  for (uint32_t b = 0; b < num_buffers; ++b) {
    const tflite::Buffer* buffer = m.buffers()->Get(b);
    if (buffer == nullptr) return Status::Errorf("buffer ", b, " is null");
    if (buffer->offset() > 1) {
      const uint64_t offset = buffer->offset(), size = buffer->size();
      if (offset > size_ || size > size_ - offset) {
        return Status::Errorf("buffer ", b, " points at bytes ", offset, "..", offset + size,
                              " beyond the end of the file (", size_, " bytes)");
      }
    }
  }
  for (uint32_t i = 0; i < num_opcodes; ++i) {
    if (m.operator_codes()->Get(i) == nullptr) return Status::Errorf("operator code ", i, " is null");
  }

  std::vector<std::vector<int>> calls(num_subgraphs);  // subgraphs each subgraph's ops call
  for (uint32_t s = 0; s < num_subgraphs; ++s) {
    const tflite::SubGraph* sg = m.subgraphs()->Get(s);
    if (sg == nullptr) return Status::Errorf("subgraph ", s, " is null");
    const uint32_t num_tensors = Size(sg->tensors());
    for (uint32_t t = 0; t < num_tensors; ++t) {
      const tflite::Tensor* tensor = sg->tensors()->Get(t);
      if (tensor == nullptr) return Status::Errorf("subgraph ", s, ", tensor ", t, " is null");
      // Built only for an error message: a model has thousands of tensors.
      auto label = [&] { return TensorLabel(static_cast<int>(s), static_cast<int>(t), tensor); };
      const int type = static_cast<int>(tensor->type());
      if (type < 0 || type > kLastTensorType) {
        return Status::Errorf(label(), ": unknown tensor type ", type);
      }
      Shape shape;
      if (tensor->shape()) shape.assign(tensor->shape()->begin(), tensor->shape()->end());
      for (int32_t d : shape) {
        if (d < 0) return Status::Errorf(label(), ": negative dimension in shape ", ShapeToString(shape));
      }
      const int64_t elements = NumElements(shape);
      if (elements < 0) return Status::Errorf(label(), ": shape ", ShapeToString(shape), " overflows");
      if (tensor->buffer() >= num_buffers) {
        return Status::Errorf(label(), ": buffer index ", tensor->buffer(), " out of range (the model has ",
                              num_buffers, " buffers)");
      }
      const Bytes data = buffer(tensor->buffer());
      const auto ttype = static_cast<TensorType>(type);
      if (data.size > 0 && tensor->sparsity() == nullptr) {
        size_t expected = 0;
        if (ttype == TensorType::kString) {
          bool ok = false;
          (void)ReadStringTensor(data.data, data.size, &ok);
          if (!ok) return Status::Errorf(label(), ": constant string data has an invalid layout");
        } else if (TensorBytes(ttype, elements, &expected)) {
          if (expected != data.size) {
            return Status::Errorf(label(), ": constant data has ", data.size, " bytes, but ",
                                  TensorTypeName(ttype), ShapeToString(shape), " needs ", expected);
          }
        }
      }
      if (const auto* q = tensor->quantization()) {
        if (Status st = ValidateQuantization(*q, shape, ttype); !st.ok()) return st.WithContext(label());
      }
      if (const auto* sparsity = tensor->sparsity()) {
        if (Status st = ValidateSparsity(*sparsity, shape, ttype, data.size, data.size > 0 && !tensor->is_variable());
            !st.ok()) {
          return st.WithContext(label());
        }
      }
    }
    auto check_list = [&](const flatbuffers::Vector<int32_t>* list, const char* what,
                          bool allow_optional) -> Status {
      for (uint32_t i = 0; i < Size(list); ++i) {
        const int32_t index = list->Get(i);
        if (allow_optional && index == -1) continue;
        if (index < 0 || static_cast<uint32_t>(index) >= num_tensors) {
          return Status::Errorf(what, " ", i, " is tensor ", index, ", out of range (", num_tensors,
                                " tensors)");
        }
      }
      return Status::Ok();
    };
    const std::string sg_label = StrCat("subgraph ", s);
    ER_RETURN_IF_ERROR(check_list(sg->inputs(), "input", false).WithContext(sg_label));
    for (uint32_t i = 0; i < Size(sg->inputs()); ++i) {
      // Inputs are written by the caller (or by the op that calls the subgraph): not constants.
      const tflite::Tensor* input = sg->tensors()->Get(sg->inputs()->Get(i));
      if (!input->is_variable() && buffer(input->buffer()).size > 0) {
        return Status::Errorf(sg_label, ": input ", i, " is ", TensorLabel(s, sg->inputs()->Get(i), input),
                              ", which has constant data");
      }
    }
    ER_RETURN_IF_ERROR(check_list(sg->outputs(), "output", false).WithContext(sg_label));
    std::vector<int32_t> writer(num_tensors, -1);  // the op that writes each tensor
    // The caller writes the subgraph's inputs: an op that writes one too would leave it without
    // memory when its shape is known only at run time (fuzz_invoke: TRANSPOSE_CONV writing a
    // subgraph input, which `edgerun run` then filled through null).
    constexpr int32_t kCaller = -2;
    for (uint32_t i = 0; i < Size(sg->inputs()); ++i) {
      const int32_t in = sg->inputs()->Get(i);
      if (in >= 0) writer[in] = kCaller;
    }
    for (uint32_t o = 0; o < Size(sg->operators()); ++o) {
      const tflite::Operator* op = sg->operators()->Get(o);
      auto op_label = [&] { return StrCat(sg_label, ", op ", o); };  // built only for an error
      if (op == nullptr) return Status::Errorf(op_label(), " is null");
      if (op->opcode_index() >= num_opcodes) {
        return Status::Errorf(op_label(), ": opcode index ", op->opcode_index(), " out of range (",
                              num_opcodes, " operator codes)");
      }
      ER_RETURN_IF_ERROR_IN(op_label(), check_list(op->inputs(), "input", true));
      ER_RETURN_IF_ERROR_IN(op_label(), check_list(op->outputs(), "output", true));
      ER_RETURN_IF_ERROR_IN(op_label(), check_list(op->intermediates(), "intermediate", true));
      const tflite::OperatorCode* code = m.operator_codes()->Get(op->opcode_index());
      const int32_t builtin = std::max<int32_t>(code->builtin_code(), code->deprecated_builtin_code());
      for (uint32_t i = 0; i < Size(op->outputs()); ++i) {
        // Every tensor has one writer (the graph is in SSA form, as TFLite's converter writes
        // it): a second writer would resize and retype memory planned for the first (fuzz_invoke).
        const int32_t out = op->outputs()->Get(i);
        // An op that reads what it writes is a cycle no order of the ops can run.
        for (uint32_t j = 0; out >= 0 && j < Size(op->inputs()); ++j) {
          if (op->inputs()->Get(j) == out) {
            return Status::Errorf(op_label(), " (", BuiltinOpName(builtin), "): output ", i, " is ",
                                  TensorLabel(s, out, sg->tensors()->Get(out)), ", which is also its input ", j);
          }
        }
        if (out >= 0 && writer[out] == kCaller) {
          return Status::Errorf(op_label(), " (", BuiltinOpName(builtin), "): output ", i, " is ",
                                TensorLabel(s, out, sg->tensors()->Get(out)),
                                ", which is an input of the subgraph (its value comes from the caller)");
        }
        if (out >= 0 && writer[out] >= 0) {
          return Status::Errorf(op_label(), " (", BuiltinOpName(builtin), "): output ", i, " is ",
                                TensorLabel(s, out, sg->tensors()->Get(out)), ", which op ", writer[out],
                                " also writes");
        }
        if (out >= 0) writer[out] = static_cast<int32_t>(o);
      }
      for (int64_t callee : CalledSubgraphs(builtin, *op)) {
        if (callee < 0 || callee >= num_subgraphs) {
          return Status::Errorf(op_label(), " (", BuiltinOpName(builtin), "): calls subgraph ", callee,
                                ", which does not exist (the model has ", num_subgraphs, ")");
        }
        calls[s].push_back(static_cast<int>(callee));
      }
      if (op->large_custom_options_offset() > 1) {
        const uint64_t offset = op->large_custom_options_offset();
        const uint64_t size = op->large_custom_options_size();
        if (offset > size_ || size > size_ - offset) {
          return Status::Errorf(op_label(), ": custom options point beyond the end of the file");
        }
      }
    }
  }

  ER_RETURN_IF_ERROR(ValidateCallGraph(calls, &subgraph_nesting_));

  for (uint32_t i = 0; i < Size(m.signature_defs()); ++i) {
    const tflite::SignatureDef* sig = m.signature_defs()->Get(i);
    if (sig == nullptr) return Status::Errorf("signature ", i, " is null");
    if (sig->subgraph_index() >= num_subgraphs) {
      return Status::Errorf("signature ", i, " refers to subgraph ", sig->subgraph_index(),
                            " (the model has ", num_subgraphs, ")");
    }
    const uint32_t num_tensors = Size(m.subgraphs()->Get(sig->subgraph_index())->tensors());
    for (const auto* list : {sig->inputs(), sig->outputs()}) {
      for (uint32_t k = 0; k < Size(list); ++k) {
        const tflite::TensorMap* map = list->Get(k);
        if (map == nullptr || map->tensor_index() >= num_tensors) {
          return Status::Errorf("signature ", i, " maps a name to a tensor outside subgraph ",
                                sig->subgraph_index());
        }
      }
    }
  }
  for (uint32_t i = 0; i < Size(m.metadata()); ++i) {
    const tflite::Metadata* md = m.metadata()->Get(i);
    if (md == nullptr || md->buffer() >= num_buffers) {
      return Status::Errorf("metadata entry ", i, " refers to a buffer out of range");
    }
  }
  return Status::Ok();
}

uint32_t Model::version() const { return root_->version(); }

std::string Model::description() const {
  return root_->description() ? root_->description()->str() : std::string();
}

int Model::num_subgraphs() const { return static_cast<int>(Size(root_->subgraphs())); }

Model::Bytes Model::buffer(uint32_t index) const {
  const tflite::Buffer* b = root_->buffers()->Get(index);
  if (b->offset() > 1) {
    if (b->size() == 0) return {};
    return {data_ + b->offset(), static_cast<size_t>(b->size())};
  }
  if (b->data() == nullptr || b->data()->size() == 0) return {};
  return {b->data()->data(), b->data()->size()};
}

std::vector<std::string> Model::metadata_names() const {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < Size(root_->metadata()); ++i) {
    const auto* md = root_->metadata()->Get(i);
    names.push_back(md->name() ? md->name()->str() : std::string());
  }
  return names;
}

bool Model::metadata(const std::string& name, Bytes* bytes) const {
  for (uint32_t i = 0; i < Size(root_->metadata()); ++i) {
    const auto* md = root_->metadata()->Get(i);
    if (md->name() && md->name()->string_view() == name) {
      *bytes = buffer(md->buffer());
      return true;
    }
  }
  return false;
}

size_t Model::weight_bytes() const {
  // Count each buffer once, even when several tensors share it.
  std::vector<bool> seen(Size(root_->buffers()), false);
  size_t total = 0;
  for (uint32_t s = 0; s < Size(root_->subgraphs()); ++s) {
    const auto* sg = root_->subgraphs()->Get(s);
    for (uint32_t t = 0; t < Size(sg->tensors()); ++t) {
      const uint32_t b = sg->tensors()->Get(t)->buffer();
      if (b == 0 || seen[b]) continue;
      seen[b] = true;
      total += buffer(b).size;
    }
  }
  return total;
}

}  // namespace edgerun
