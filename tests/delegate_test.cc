// The delegate interface: the partitioner on plain graphs, then a small test delegate that runs
// float ADD and MUL itself, checked against the builtin kernels (XNNPACK off, so that only the
// test delegate acts).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/subgraph.h"
#include "delegates/partition.h"
#include "test_util.h"

namespace edgerun {
namespace {

using delegates::GroupUnits;
using delegates::PartitionPlan;
using delegates::PlanGroup;
using delegates::PlanUnit;

PlanUnit U(std::vector<int> reads, std::vector<int> writes, bool claimed, bool heavy = false, bool barrier = false) {
  PlanUnit u;
  u.reads = std::move(reads);
  u.writes = std::move(writes);
  u.claimed = claimed;
  u.heavy = heavy;
  u.barrier = barrier;
  return u;
}

// Groups as "C[0,1] B[2] C[3]" (C claimed, B builtin).
std::string Describe(const std::vector<PlanGroup>& groups) {
  std::string s;
  for (const PlanGroup& g : groups) {
    if (!s.empty()) s += " ";
    s += g.claimed ? "C[" : "B[";
    for (size_t i = 0; i < g.units.size(); ++i) s += (i ? "," : "") + std::to_string(g.units[i]);
    s += "]";
  }
  return s;
}

TEST(Partitioner, ChainOfClaimedNodesIsOneGroup) {
  // t0 -> u0 -> t1 -> u1 -> t2 -> u2 -> t3
  const std::vector<PlanUnit> units = {U({0}, {1}, true), U({1}, {2}, true), U({2}, {3}, true)};
  EXPECT_EQ(Describe(GroupUnits(units)), "C[0,1,2]");
}

TEST(Partitioner, RefusedNodeInTheMiddleSplitsTheChain) {
  const std::vector<PlanUnit> units = {U({0}, {1}, true), U({1}, {2}, false), U({2}, {3}, true)};
  EXPECT_EQ(Describe(GroupUnits(units)), "C[0] B[1] C[2]");
}

TEST(Partitioner, IndependentBranchesJoinAcrossARefusedNode) {
  // u0 claimed, u1 refused on another branch, u2 claimed after u0, u3 (claimed) needs u1 and u2:
  // the refused branch can run first, and every claimed unit forms one group.
  const std::vector<PlanUnit> units = {U({0}, {1}, true), U({0}, {2}, false), U({1}, {3}, true),
                                       U({2, 3}, {4}, true)};
  EXPECT_EQ(Describe(GroupUnits(units)), "B[1] C[0,2,3]");
  // When the refused unit needs u0, u0 and u2 still run together before it.
  const std::vector<PlanUnit> after = {U({0}, {1}, true), U({1}, {2}, false), U({1}, {3}, true),
                                       U({2, 3}, {4}, true)};
  EXPECT_EQ(Describe(GroupUnits(after)), "C[0,2] B[1] C[3]");
}

TEST(Partitioner, NeverRunsAConsumerBeforeItsProducer) {
  // A claimed unit that depends on a refused one cannot join the group before it.
  const std::vector<PlanUnit> units = {U({0}, {1}, true), U({1}, {2}, false), U({2, 1}, {3}, true)};
  const auto groups = GroupUnits(units);
  EXPECT_EQ(Describe(groups), "C[0] B[1] C[2]");
}

TEST(Partitioner, WriteAfterReadKeepsItsOrder) {
  // u1 overwrites tensor 1 that u0 read: u1 must stay after u0 even though it reads nothing.
  const std::vector<PlanUnit> units = {U({1}, {2}, false), U({}, {1}, true), U({2}, {3}, true)};
  const auto groups = GroupUnits(units);
  EXPECT_EQ(Describe(groups), "B[0] C[1,2]");
}

TEST(Partitioner, BarrierKeepsItsPlace) {
  // u1 has hidden effects: nothing moves across it, even an independent claimed unit.
  const std::vector<PlanUnit> units = {U({0}, {1}, true), U({5}, {6}, false, false, true), U({0}, {2}, true)};
  EXPECT_EQ(Describe(GroupUnits(units)), "C[0] B[1] C[2]");
}

TEST(Partitioner, ConstantOnlyUnitJoinsItsConsumers) {
  // u0 reads only constants (a DEQUANTIZE of weights); its consumer u3 sits after a refused unit.
  const std::vector<PlanUnit> units = {U({9}, {1}, true), U({0}, {2}, true), U({2}, {3}, false),
                                       U({3, 1}, {4}, true)};
  EXPECT_EQ(Describe(GroupUnits(units)), "C[1] B[2] C[0,3]");
}

TEST(Partitioner, ThresholdSendsSmallGroupsBack) {
  const std::vector<PlanUnit> units = {U({0}, {1}, true), U({1}, {2}, false), U({2}, {3}, true),
                                       U({3}, {4}, true), U({4}, {5}, true)};
  std::vector<std::pair<int, int>> demoted;
  EXPECT_EQ(Describe(PartitionPlan(units, 2, &demoted)), "B[0,1] C[2,3,4]");
  ASSERT_EQ(demoted.size(), 1u);
  EXPECT_EQ(demoted[0], (std::pair<int, int>{0, 1}));
  EXPECT_EQ(Describe(PartitionPlan(units, 4)), "B[0,1,2,3,4]");
}

TEST(Partitioner, ThresholdSparesHeavyNodesAndTheWholeGraph) {
  const std::vector<PlanUnit> heavy = {U({0}, {1}, true, true), U({1}, {2}, false), U({2}, {3}, true)};
  EXPECT_EQ(Describe(PartitionPlan(heavy, 3)), "C[0] B[1,2]");
  const std::vector<PlanUnit> whole = {U({0}, {1}, true)};
  EXPECT_EQ(Describe(PartitionPlan(whole, 3)), "C[0]");
}

TEST(Partitioner, DemotionCanMergeTheRest) {
  // Dropping the lone claimed u2 lets the builtin units around it form one group.
  const std::vector<PlanUnit> units = {U({0}, {1}, true), U({1}, {2}, true), U({2}, {3}, false),
                                       U({3}, {4}, true), U({4}, {5}, false)};
  EXPECT_EQ(Describe(PartitionPlan(units, 2)), "C[0,1] B[2,3,4]");
}

// ---- a test delegate on real interpreters

struct Counters {
  int creates = 0, prepares = 0, evals = 0;
};

// Runs float ADD / MUL of equal shapes; values inside the partition live in its own buffers.
class TestKernel : public DelegateKernel {
 public:
  explicit TestKernel(Counters* counters) : counters_(counters) {}
  Status Prepare(OpContext& ctx, const Partition& partition) override {
    ++counters_->prepares;
    internal_.clear();
    return Status::Ok();
  }
  Status Eval(OpContext& ctx, const Partition& partition) override {
    ++counters_->evals;
    Subgraph& sg = ctx.subgraph();
    auto data = [&](int t) -> float* {
      Tensor* tensor = sg.tensor(t);
      if (tensor->data != nullptr) return tensor->data_as<float>();
      auto& buffer = internal_[t];
      buffer.resize(tensor->num_elements());
      return buffer.data();
    };
    for (int n : partition.nodes) {
      OpContext node(&sg, n);
      const float* a = data(node.input_tensor_index(0));
      const float* b = data(node.input_tensor_index(1));
      float* out = data(node.output_tensor_index(0));
      const bool add = node.builtin_code() == tflite::BuiltinOperator_ADD;
      for (int64_t i = 0; i < node.output(0)->num_elements(); ++i) out[i] = add ? a[i] + b[i] : a[i] * b[i];
    }
    return Status::Ok();
  }

 private:
  Counters* counters_;
  std::map<int, std::vector<float>> internal_;
};

class TestDelegate : public Delegate {
 public:
  TestDelegate(std::string name, std::vector<int32_t> ops, int min_nodes, Counters* counters)
      : name_(std::move(name)), ops_(std::move(ops)), min_nodes_(min_nodes), counters_(counters) {}
  std::string name() const override { return name_; }
  int min_partition_nodes() const override { return min_nodes_; }
  NodeClaim Claim(const OpContext& node) override {
    if (std::find(ops_.begin(), ops_.end(), node.builtin_code()) == ops_.end()) return NodeClaim::No("not my op");
    if (node.input(0)->shape != node.input(1)->shape) return NodeClaim::No("broadcasting");
    return NodeClaim::Yes();
  }
  Result<std::unique_ptr<DelegateKernel>> CreateKernel(OpContext&, const Partition& partition) override {
    ++counters_->creates;
    if (refuse_partitions_with_ > 0 && static_cast<int>(partition.nodes.size()) == refuse_partitions_with_) {
      // A kernel that cannot take the partition after all.
      struct Refusing : DelegateKernel {
        Status Prepare(OpContext&, const Partition&) override { return Status::Unsupported("too big for me"); }
        Status Eval(OpContext&, const Partition&) override { return Status::Error("unreachable"); }
      };
      return std::unique_ptr<DelegateKernel>(new Refusing());
    }
    return std::unique_ptr<DelegateKernel>(new TestKernel(counters_));
  }
  Status Confirm(const OpContext& node) override {
    confirmed_.push_back(node.node_index());
    if (node.node_index() == refuse_on_confirm_) return Status::Unsupported("refused on a closer look");
    return Status::Ok();
  }
  int refuse_partitions_with_ = 0;
  int refuse_on_confirm_ = -1;
  std::vector<int> confirmed_;  // nodes asked, in order

 private:
  std::string name_;
  std::vector<int32_t> ops_;
  int min_nodes_;
  Counters* counters_;
};

// The chain with constant second operands: x -> ADD 1 -> MUL 2 -> RELU -> ADD 3 -> MUL 4 -> ADD 5.
std::vector<uint8_t> ConstChainModel() {
  ModelBuilder b;
  const Shape shape = {1, 4};
  int x = b.AddTensor("x", TensorType::kFloat32, shape);
  const int input = x;
  const tflite::BuiltinOperator ops[] = {tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_MUL,
                                         tflite::BuiltinOperator_RELU, tflite::BuiltinOperator_ADD,
                                         tflite::BuiltinOperator_MUL, tflite::BuiltinOperator_ADD};
  int k = 0;
  for (auto op : ops) {
    const int y = b.AddTensor("t" + std::to_string(k), TensorType::kFloat32, shape);
    if (op == tflite::BuiltinOperator_RELU) {
      b.AddOp(op, {x}, {y});
    } else {
      const float v = static_cast<float>(k + 1);
      const int c = b.AddConstant<float>("c" + std::to_string(k), TensorType::kFloat32, shape, {v, -v, v, -v});
      b.AddOp(op, {x, c}, {y});
    }
    x = y;
    ++k;
  }
  b.SetInputs({input});
  b.SetOutputs({x});
  return b.Finish();
}

std::vector<float> Expected(const std::vector<float>& in) {
  std::vector<float> out;
  for (size_t i = 0; i < in.size(); ++i) {
    const float s = (i % 2 == 0) ? 1.0f : -1.0f;
    float v = in[i] + 1 * s;
    v = v * 2 * s;
    v = std::max(v, 0.0f);
    v = v + 4 * s;
    v = v * 5 * s;
    v = v + 6 * s;
    out.push_back(v);
  }
  return out;
}

std::unique_ptr<Interpreter> BuildWith(const std::vector<uint8_t>& bytes, std::vector<std::shared_ptr<Delegate>> ds) {
  InterpreterOptions options;
  options.use_xnnpack = false;
  options.delegates = std::move(ds);
  return testing::Build(bytes, options);
}

TEST(Delegation, PartitionsAroundARefusedNodeAndMatchesBuiltin) {
  Counters counters;
  auto delegate = std::make_shared<TestDelegate>(
      "TEST", std::vector<int32_t>{tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_MUL}, 1, &counters);
  auto interpreter = BuildWith(ConstChainModel(), {delegate});
  ASSERT_TRUE(interpreter);
  const DelegationReport& report = *interpreter->delegation();
  ASSERT_EQ(report.partitions.size(), 2u);
  EXPECT_EQ(report.partitions[0].partition.nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(report.partitions[1].partition.nodes, (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(report.nodes[2].partition, -1);
  ASSERT_EQ(report.nodes[2].refusals.size(), 1u);
  EXPECT_EQ(report.nodes[2].refusals[0], (std::pair<std::string, std::string>{"TEST", "not my op"}));
  Subgraph* sg = interpreter->subgraph(0);
  ASSERT_EQ(sg->execution_plan().size(), 3u);
  EXPECT_EQ(sg->nodes()[sg->execution_plan()[0]].name, "TEST(2 nodes)");
  EXPECT_EQ(sg->nodes()[sg->execution_plan()[2]].name, "TEST(3 nodes)");
  // Values inside a partition get no arena memory; the boundary ones do.
  auto named = [&](const std::string& name) -> Tensor* {
    for (size_t i = 0; i < sg->num_tensors(); ++i) {
      if (sg->tensor(static_cast<int>(i))->name == name) return sg->tensor(static_cast<int>(i));
    }
    return nullptr;
  };
  EXPECT_EQ(named("t0")->data, nullptr);  // inside the first partition
  EXPECT_NE(named("t1")->data, nullptr);  // its output, read by RELU

  const std::vector<float> in = {0.5f, -2.0f, 3.0f, 0.25f};
  testing::SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*interpreter, 0), Expected(in), 1e-6f));
  EXPECT_EQ(counters.evals, 2);
  EXPECT_EQ(counters.creates, 2);
}

TEST(Delegation, ThresholdKeepsSmallPartitionsOnBuiltinKernels) {
  Counters counters;
  auto delegate = std::make_shared<TestDelegate>(
      "TEST", std::vector<int32_t>{tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_MUL}, 3, &counters);
  auto interpreter = BuildWith(ConstChainModel(), {delegate});
  ASSERT_TRUE(interpreter);
  const DelegationReport& report = *interpreter->delegation();
  ASSERT_EQ(report.partitions.size(), 1u);
  EXPECT_EQ(report.partitions[0].partition.nodes, (std::vector<int>{3, 4, 5}));
  ASSERT_EQ(report.nodes[0].refusals.size(), 1u);
  EXPECT_NE(report.nodes[0].refusals[0].second.find("below the minimum of 3"), std::string::npos)
      << report.nodes[0].refusals[0].second;
  const std::vector<float> in = {1, 2, -3, -4};
  testing::SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*interpreter, 0), Expected(in), 1e-6f));
}

TEST(Delegation, SeveralDelegatesApplyInOrder) {
  Counters a_counters, b_counters;
  auto adds = std::make_shared<TestDelegate>("ADDS", std::vector<int32_t>{tflite::BuiltinOperator_ADD}, 1, &a_counters);
  auto muls = std::make_shared<TestDelegate>(
      "MULS", std::vector<int32_t>{tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_MUL}, 1, &b_counters);
  auto interpreter = BuildWith(ConstChainModel(), {adds, muls});
  ASSERT_TRUE(interpreter);
  const DelegationReport& report = *interpreter->delegation();
  // The first takes every ADD (0, 3, 5); the second only sees the MULs (1, 4) that are left.
  for (int n : {0, 3, 5}) EXPECT_EQ(report.partitions[report.nodes[n].partition].delegate, "ADDS") << n;
  for (int n : {1, 4}) EXPECT_EQ(report.partitions[report.nodes[n].partition].delegate, "MULS") << n;
  ASSERT_EQ(report.nodes[1].refusals.size(), 1u);  // refused by ADDS before MULS took it
  EXPECT_EQ(report.nodes[1].refusals[0].first, "ADDS");
  const std::vector<float> in = {1, 2, 3, 4};
  testing::SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*interpreter, 0), Expected(in), 1e-6f));
  EXPECT_EQ(a_counters.evals, 3);
  EXPECT_EQ(b_counters.evals, 2);
}

TEST(Delegation, RefusedPartitionFallsBackWithTheKernelsReason) {
  Counters counters;
  auto delegate = std::make_shared<TestDelegate>(
      "TEST", std::vector<int32_t>{tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_MUL}, 1, &counters);
  delegate->refuse_partitions_with_ = 3;
  auto interpreter = BuildWith(ConstChainModel(), {delegate});
  ASSERT_TRUE(interpreter);
  const DelegationReport& report = *interpreter->delegation();
  ASSERT_EQ(report.partitions.size(), 1u);
  EXPECT_EQ(report.partitions[0].partition.nodes, (std::vector<int>{0, 1}));
  ASSERT_EQ(report.nodes[4].refusals.size(), 1u);
  EXPECT_NE(report.nodes[4].refusals[0].second.find("too big for me"), std::string::npos);
  const std::vector<float> in = {-1, 2, -3, 4};
  testing::SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*interpreter, 0), Expected(in), 1e-6f));
}

// Confirm is asked only of nodes in partitions about to be made, once each; a node it refuses
// goes back to the builtin kernels with the delegate's reason and splits its partition.
TEST(Delegation, ConfirmIsAskedOnlyOfNodesAboutToBeDelegated) {
  Counters counters;
  auto delegate = std::make_shared<TestDelegate>(
      "TEST", std::vector<int32_t>{tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_MUL}, 2, &counters);
  delegate->refuse_on_confirm_ = 4;
  auto interpreter = BuildWith(ConstChainModel(), {delegate});
  ASSERT_TRUE(interpreter);
  const DelegationReport& report = *interpreter->delegation();
  // Claimed: 0, 1 | RELU 2 | 3, 4, 5. Node 4 is refused on confirmation, which leaves 3 and 5
  // alone, under the threshold of 2: only {0, 1} is delegated.
  ASSERT_EQ(report.partitions.size(), 1u);
  EXPECT_EQ(report.partitions[0].partition.nodes, (std::vector<int>{0, 1}));
  ASSERT_EQ(report.nodes[4].refusals.size(), 1u);
  EXPECT_EQ(report.nodes[4].refusals[0].second, "refused on a closer look");
  EXPECT_NE(report.nodes[3].refusals[0].second.find("below the minimum of 2"), std::string::npos);
  std::vector<int> asked = delegate->confirmed_;
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(asked, (std::vector<int>{0, 1, 3, 4, 5}));  // each once; never the RELU
  const std::vector<float> in = {-1, 2, -3, 4};
  testing::SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*interpreter, 0), Expected(in), 1e-6f));

  // With a threshold of 3, the first chain {0, 1} never becomes a partition: never confirmed.
  Counters counters3;
  auto strict = std::make_shared<TestDelegate>(
      "TEST", std::vector<int32_t>{tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_MUL}, 3, &counters3);
  auto interpreter3 = BuildWith(ConstChainModel(), {strict});
  ASSERT_TRUE(interpreter3);
  EXPECT_EQ(strict->confirmed_, (std::vector<int>{3, 4, 5}));
}

// Batch-resizable chain: ADD/MUL with a second graph input each.
std::vector<uint8_t> ResizableModel() {
  ModelBuilder b;
  const Shape shape = {1, 3}, signature = {-1, 3};
  const int x = b.AddTensor("x", TensorType::kFloat32, shape, {}, signature);
  const int y = b.AddTensor("y", TensorType::kFloat32, shape, {}, signature);
  const int s = b.AddTensor("s", TensorType::kFloat32, shape, {}, signature);
  const int p = b.AddTensor("p", TensorType::kFloat32, shape, {}, signature);
  const int r = b.AddTensor("r", TensorType::kFloat32, shape, {}, signature);
  const int out = b.AddTensor("out", TensorType::kFloat32, shape, {}, signature);
  b.AddOp(tflite::BuiltinOperator_ADD, {x, y}, {s});
  b.AddOp(tflite::BuiltinOperator_MUL, {s, y}, {p});
  b.AddOp(tflite::BuiltinOperator_RELU, {p}, {r});
  b.AddOp(tflite::BuiltinOperator_ADD, {r, x}, {out});
  b.SetInputs({x, y});
  b.SetOutputs({out});
  return b.Finish();
}

TEST(Delegation, ResizeInputPreparesThePartitionAgain) {
  Counters counters;
  auto delegate = std::make_shared<TestDelegate>(
      "TEST", std::vector<int32_t>{tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_MUL}, 1, &counters);
  auto interpreter = BuildWith(ResizableModel(), {delegate});
  ASSERT_TRUE(interpreter);
  EXPECT_EQ(counters.creates, 2);
  EXPECT_EQ(counters.prepares, 2);
  for (int batch : {3, 2}) {
    ASSERT_TRUE(interpreter->ResizeInputTensor(0, {batch, 3}).ok());
    ASSERT_TRUE(interpreter->ResizeInputTensor(1, {batch, 3}).ok());
    ASSERT_TRUE(interpreter->AllocateTensors().ok());
    std::vector<float> x(batch * 3), y(batch * 3), want(batch * 3);
    for (int i = 0; i < batch * 3; ++i) {
      x[i] = 0.5f * i - 2;
      y[i] = 1.0f - 0.25f * i;
      want[i] = std::max((x[i] + y[i]) * y[i], 0.0f) + x[i];
    }
    testing::SetInput(*interpreter, 0, x);
    testing::SetInput(*interpreter, 1, y);
    ASSERT_TRUE(interpreter->Invoke().ok());
    EXPECT_EQ(interpreter->output(0)->shape, (Shape{batch, 3}));
    EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*interpreter, 0), want, 1e-6f));
  }
  // Same partitions each time: the kernels are kept and prepared again.
  EXPECT_EQ(counters.creates, 2);
  EXPECT_EQ(counters.prepares, 6);
}

class RecordingProfiler : public Profiler {
 public:
  void OnNodeBegin(int, int, const std::string& op_name) override { names.push_back(op_name); }
  void OnNodeEnd(int, int, const std::string&) override {}
  std::vector<std::string> names;
};

TEST(Delegation, ProfilerSeesOneEntryPerPartition) {
  Counters counters;
  auto delegate = std::make_shared<TestDelegate>(
      "TEST", std::vector<int32_t>{tflite::BuiltinOperator_ADD, tflite::BuiltinOperator_MUL}, 1, &counters);
  auto interpreter = BuildWith(ConstChainModel(), {delegate});
  ASSERT_TRUE(interpreter);
  RecordingProfiler profiler;
  interpreter->SetProfiler(&profiler);
  testing::SetInput<float>(*interpreter, 0, {1, 2, 3, 4});
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_EQ(profiler.names, (std::vector<std::string>{"TEST(2 nodes)", "RELU", "TEST(3 nodes)"}));
  const Subgraph* sg = interpreter->subgraph(0);
  EXPECT_EQ(sg->nodes()[sg->execution_plan()[2]].delegated_nodes, (std::vector<int>{3, 4, 5}));
}

TEST(Delegation, ModifyGraphWithDelegateTakesEffectAtNextAllocation) {
  Counters counters;
  auto interpreter = BuildWith(ConstChainModel(), {});
  ASSERT_TRUE(interpreter);
  EXPECT_TRUE(interpreter->delegation()->partitions.empty());
  ASSERT_TRUE(interpreter
                  ->ModifyGraphWithDelegate(std::make_shared<TestDelegate>(
                      "TEST", std::vector<int32_t>{tflite::BuiltinOperator_MUL}, 1, &counters))
                  .ok());
  EXPECT_FALSE(interpreter->Invoke().ok());  // needs AllocateTensors first
  ASSERT_TRUE(interpreter->AllocateTensors().ok());
  EXPECT_EQ(interpreter->delegation()->partitions.size(), 2u);
  const std::vector<float> in = {4, 3, 2, 1};
  testing::SetInput(*interpreter, 0, in);
  ASSERT_TRUE(interpreter->Invoke().ok());
  EXPECT_TRUE(testing::AllNear(testing::GetOutput<float>(*interpreter, 0), Expected(in), 1e-6f));
}

}  // namespace
}  // namespace edgerun
