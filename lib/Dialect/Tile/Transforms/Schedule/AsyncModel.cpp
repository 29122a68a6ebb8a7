//===- AsyncModel.cpp - Execution model of tile-verify-async --------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Agents. Each warp of each program of the cluster is an agent; the
// partition of a tile.warp_specialize is one agent (its first warp runs the
// region). Each agent has a vector clock with a component for itself and
// one each for its cp.async groups, wgmma groups and bulk (TMA store)
// groups; each mbarrier has one, whose value is the number of its completed
// phases. An epoch (component, time) is known to a clock whose component is
// at least that time.
//
// Synchronization. Block, named and cluster barriers join the clocks of
// their participants. An mbarrier phase completes when it has `count`
// arrivals and its expected transaction bytes have landed; its clock is the
// join of the arrivals (and TMA issues) plus the barrier's component; a wait
// that returns acquires it. cp.async / wgmma / bulk waits retire their
// groups in order (the agent's component for them moves forward).
//
// Data. Integers the control flow reads from memory (tile.load_scalar)
// come from the model's memory: the element at row-major position i of a
// view is the end of group i of a fixed routing (kModelGroupSizes), what a
// grouped GEMM's offsets hold. A path then stands for that routing only.
// With `shortenDataLoops` (tile-verify-async asks for it where paths run
// long), loops bounded by such data (a block list's count, a document's
// first block) run shortened: one that would run more than 2 x kDataTrips
// iterations runs kDataTrips plus its count modulo kDataTrips. Agents whose
// loops the same data bounds then agree, and a ring whose period divides
// kDataTrips leaves such a loop in the phase it would have; where agents
// bound theirs differently they may not, so a violation found after a
// shortened loop ended is not reported (the path counts as not checked).
//
// Accesses. A stage of a tile.local_alloc buffer records its writes (since
// the last write that knew every earlier one) and reads. A read must know
// every write; a write must know every read; an async-proxy read (wgmma, TMA
// store) must also know the writer's fence.proxy.async after a generic
// write. TMA writes are epochs of their barrier's phase, cp.async writes of
// their group, wgmma and TMA-store reads of their group, so they count as
// done only after the wait that covers them.
//
// Phases. The hardware compares parities, so a protocol is sound only when
// each wait and each arrival meets one phase on every interleaving:
//   * an arrival (or transaction) toward phase n >= 1 must know phase n-1's
//     completion, or it could land in phase n-1;
//   * a wait whose agent knows k completed phases names, by its parity,
//     either phase k-1 (done) or phase k; the next phase after the one it
//     names must not be able to complete before the wait executes (its
//     completion must know the wait), or the parity would name two phases.
// With these, one interleaving stands for all; the simulator runs agents
// round-robin and reports a deadlock when none can move.
//
//===----------------------------------------------------------------------===//

#include "AsyncModel.h"

#include "tilec/Dialect/Tile/Transforms/ScheduleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AsmState.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <deque>
#include <tuple>

using namespace mlir;
using namespace mlir::tilec;
using namespace mlir::tilec::tile;
using namespace mlir::tilec::tile::async;

namespace {

using Time = uint32_t;

struct Epoch {
  unsigned comp = 0;
  Time time = 0;
};

/// A vector clock over the components of one simulation.
class Clock {
public:
  Time get(unsigned c) const { return c < v.size() ? v[c] : 0; }
  void set(unsigned c, Time t) {
    if (c >= v.size())
      v.resize(c + 1, 0);
    v[c] = std::max(v[c], t);
  }
  void join(const Clock &o) {
    if (o.v.size() > v.size())
      v.resize(o.v.size(), 0);
    for (size_t i = 0; i < o.v.size(); ++i)
      v[i] = std::max(v[i], o.v[i]);
  }
  bool knows(Epoch e) const { return get(e.comp) >= e.time; }

private:
  SmallVector<Time, 48> v;
};

/// One access to a shared-memory stage.
struct Access {
  enum Kind { Store, CpAsync, Tma, Load, Wgmma, TmaStore };
  Kind kind;
  Epoch epoch;
  unsigned agent;
  Operation *op;
  /// Generic writes: the writer's fence.proxy.async after the write.
  std::optional<Epoch> fence;
  /// Reads of a stage nothing has written yet: where the reader was (a
  /// later write it does not know about is this read's missing wait).
  std::optional<std::string> unfilledWhere;
  bool isGenericWrite() const { return kind == Store || kind == CpAsync; }
  bool isAsyncProxyRead() const { return kind == Wgmma || kind == TmaStore; }
};

/// The writes of a stage since the last write that knew all earlier ones
/// (one fill, possibly by several warps), the reads since, and the reads
/// before that fill (co-writers of the fill check them too).
struct Stage {
  SmallVector<Access, 8> writes, reads, priorReads;
};

/// One mbarrier of one program.
struct Slot {
  struct Obligation {
    Time phase; // must complete after the wait
    Time parity;
    Epoch epoch;
    Operation *wait;
    std::string where;
  };
  int cta = 0;
  Value array;
  int64_t index = 0;
  unsigned comp = 0;
  int64_t count = 1;
  int64_t arrived = 0, txExpected = 0, txLanded = 0;
  Time phase = 0; // completed phases
  Clock acc;
  SmallVector<Clock> completions;
  Operation *lastOp = nullptr;
  SmallVector<Obligation> obligations;
};

struct Frame {
  Operation *owner;
  Block *block;
  Block::iterator it;
  int64_t iv = 0, lb = 0, ub = 0, step = 1;
  /// A loop bounded by loaded data that runs fewer iterations than its
  /// bounds say (Simulation::execFor).
  bool shortened = false;
};

enum class Status { Ready, Waiting, Rendezvous, Done };

/// The per-value state an agent tracks.
struct ValueState {
  std::optional<int64_t> integer;
  std::optional<Time> inflight;                       // wgmma group
  std::optional<std::pair<Value, int64_t>> stageView; // in-place operand
};

struct Agent {
  unsigned index = 0;
  int cta = 0;
  int warp = 0;
  bool partition = false;
  unsigned comp = 0, cpComp = 0, wgComp = 0, bulkComp = 0;
  Clock clock;
  Time now = 0;
  SmallVector<Frame, 8> stack;
  DenseMap<Value, int64_t> ints;
  DenseMap<Value, Time> inflight;
  DenseMap<Value, Operation *> inflightDot;
  DenseMap<Value, std::pair<Value, int64_t>> views;
  Time cpCommitted = 0, cpRetired = 0;
  /// The cp.async group of this agent's last copy (empty groups hold none).
  Time cpLastCopyGroup = 0;
  Time wgIssued = 0, wgRetired = 0;
  Time bulkIssued = 0, bulkRetired = 0;
  Operation *lastBulk = nullptr, *lastCp = nullptr, *lastWgmma = nullptr;
  Status status = Status::Ready;
  Slot *waitSlot = nullptr;
  Time waitPhase = 0;
  int64_t pid[3] = {0, 0, 0};
  int64_t clusterRank = 0;

  void tick() { clock.set(comp, ++now); }
  /// A wait that leaves at most `pending` of `issued` groups in flight:
  /// the older ones retire in order (component `groupComp` moves on).
  void retire(Time issued, Time &retired, unsigned groupComp, Time pending) {
    if (issued > pending)
      retired = std::max(retired, issued - pending);
    clock.set(groupComp, retired);
    tick();
  }
  Epoch epoch() const { return {comp, now}; }
};

struct Rendezvous {
  int64_t expected = 0, have = 0, threads = -1;
  Clock acc;
  SmallVector<unsigned> waiters;
};

enum class StepResult { Progress, Blocked, Stop };

/// (program in the cluster, buffer or barrier array, stage or index).
using StageKey = std::tuple<int, void *, int64_t>;
using SlotKey = std::tuple<int, void *, int64_t>;
using RendezvousKey = std::tuple<int, int, int64_t>;

enum RendezvousKind { BlockAll, BlockDefault, BlockPartition, Named, Cluster };

int64_t wrapToWidth(int64_t v, unsigned width) {
  if (width >= 64)
    return v;
  uint64_t u = static_cast<uint64_t>(v) << (64 - width);
  return static_cast<int64_t>(u) >> (64 - width);
}

uint64_t asUnsigned(int64_t v, unsigned width) {
  if (width >= 64)
    return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & ((uint64_t(1) << width) - 1);
}

unsigned getWidth(Type t) {
  if (auto it = dyn_cast<IntegerType>(t))
    return it.getWidth();
  return 64; // index
}

bool isScalarInt(Type t) { return isa<IntegerType, IndexType>(t); }

std::optional<int64_t> evalCmp(arith::CmpIPredicate pred, int64_t a,
                               int64_t b, unsigned w) {
  uint64_t ua = asUnsigned(a, w), ub = asUnsigned(b, w);
  switch (pred) {
  case arith::CmpIPredicate::eq: return a == b;
  case arith::CmpIPredicate::ne: return a != b;
  case arith::CmpIPredicate::slt: return a < b;
  case arith::CmpIPredicate::sle: return a <= b;
  case arith::CmpIPredicate::sgt: return a > b;
  case arith::CmpIPredicate::sge: return a >= b;
  case arith::CmpIPredicate::ult: return ua < ub;
  case arith::CmpIPredicate::ule: return ua <= ub;
  case arith::CmpIPredicate::ugt: return ua > ub;
  case arith::CmpIPredicate::uge: return ua >= ub;
  }
  return std::nullopt;
}

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/// Integer arithmetic of the scalar code of a schedule (index computations,
/// ring positions, parities); std::nullopt for anything else, including a
/// division by zero.
std::optional<int64_t> evalScalar(Operation *op, ArrayRef<int64_t> in) {
  if (op->getNumResults() != 1 || !isScalarInt(op->getResult(0).getType()))
    return std::nullopt;
  unsigned w = getWidth(op->getResult(0).getType());
  unsigned inW = op->getNumOperands() ? getWidth(op->getOperand(0).getType())
                                      : w;
  auto nonzero = [&](unsigned i) { return in.size() > i && in[i] != 0; };
  auto div = [&](auto fn) -> std::optional<int64_t> {
    if (!nonzero(1) || (in[0] == INT64_MIN && in[1] == -1))
      return std::nullopt;
    return fn(in[0], in[1]);
  };
  std::optional<int64_t> r =
      TypeSwitch<Operation *, std::optional<int64_t>>(op)
          .Case([&](arith::AddIOp) { return in[0] + in[1]; })
          .Case([&](arith::SubIOp) { return in[0] - in[1]; })
          .Case([&](arith::MulIOp) { return in[0] * in[1]; })
          .Case([&](arith::DivSIOp) {
            return div([](int64_t a, int64_t b) { return a / b; });
          })
          .Case([&](arith::RemSIOp) {
            return div([](int64_t a, int64_t b) { return a % b; });
          })
          .Case([&](arith::FloorDivSIOp) { return div(floorDiv); })
          .Case([&](arith::CeilDivSIOp) {
            return div([](int64_t a, int64_t b) { return -floorDiv(-a, b); });
          })
          .Case([&](arith::DivUIOp) -> std::optional<int64_t> {
            if (!nonzero(1))
              return std::nullopt;
            return int64_t(asUnsigned(in[0], w) / asUnsigned(in[1], w));
          })
          .Case([&](arith::RemUIOp) -> std::optional<int64_t> {
            if (!nonzero(1))
              return std::nullopt;
            return int64_t(asUnsigned(in[0], w) % asUnsigned(in[1], w));
          })
          .Case([&](arith::CeilDivUIOp) -> std::optional<int64_t> {
            if (!nonzero(1))
              return std::nullopt;
            uint64_t a = asUnsigned(in[0], w), b = asUnsigned(in[1], w);
            return int64_t(a / b + (a % b != 0));
          })
          .Case([&](arith::MinSIOp) { return std::min(in[0], in[1]); })
          .Case([&](arith::MaxSIOp) { return std::max(in[0], in[1]); })
          .Case([&](arith::MinUIOp) {
            return asUnsigned(in[0], w) < asUnsigned(in[1], w) ? in[0] : in[1];
          })
          .Case([&](arith::MaxUIOp) {
            return asUnsigned(in[0], w) > asUnsigned(in[1], w) ? in[0] : in[1];
          })
          .Case([&](arith::AndIOp) { return in[0] & in[1]; })
          .Case([&](arith::OrIOp) { return in[0] | in[1]; })
          .Case([&](arith::XOrIOp) { return in[0] ^ in[1]; })
          .Case([&](arith::ShLIOp) -> std::optional<int64_t> {
            if (in[1] < 0 || in[1] >= w)
              return std::nullopt;
            return int64_t(asUnsigned(in[0], w) << in[1]);
          })
          .Case([&](arith::ShRSIOp) -> std::optional<int64_t> {
            if (in[1] < 0 || in[1] >= w)
              return std::nullopt;
            return in[0] >> in[1];
          })
          .Case([&](arith::ShRUIOp) -> std::optional<int64_t> {
            if (in[1] < 0 || in[1] >= w)
              return std::nullopt;
            return int64_t(asUnsigned(in[0], w) >> in[1]);
          })
          .Case([&](arith::CmpIOp cmp) {
            return evalCmp(cmp.getPredicate(), in[0], in[1], inW);
          })
          .Case([&](arith::SelectOp) { return in[0] ? in[1] : in[2]; })
          .Case([&](arith::ExtUIOp) { return int64_t(asUnsigned(in[0], inW)); })
          .Case([&](arith::ExtSIOp) { return in[0]; })
          .Case([&](arith::TruncIOp) { return in[0]; })
          .Case([&](arith::IndexCastOp) { return in[0]; })
          .Case([&](arith::IndexCastUIOp) {
            return int64_t(asUnsigned(in[0], inW));
          })
          .Default([](Operation *) { return std::nullopt; });
  if (!r)
    return std::nullopt;
  if (w == 1)
    return *r != 0 ? 1 : 0;
  return wrapToWidth(*r, w);
}

/// A loop bounded by loaded data runs kDataTrips plus its count modulo
/// kDataTrips iterations where it would run more than twice kDataTrips
/// (Simulation::execFor).
static constexpr int64_t kDataTrips = 16;

/// The simulator of one path.
class Simulation {
public:
  Simulation(KernelOp kernel, const Path &path, uint64_t maxSteps,
             bool shortenDataLoops)
      : kernel(kernel), kernelBody(&kernel.getBody().front()), path(path),
        maxSteps(maxSteps), shortenDataLoops(shortenDataLoops) {}

  PathResult run();

private:
  // Setup and scheduling.
  void createAgents();
  StepResult runAgent(Agent &a, unsigned budget);
  StepResult step(Agent &a);
  void finish();
  void reportDeadlock();
  SmallVector<Agent *> producersFirst();

  // Values.
  std::optional<int64_t> getInt(Agent &a, Value v);
  std::optional<int64_t> needInt(Agent &a, Value v, Operation *op,
                                 StringRef what);
  ValueState getState(Agent &a, Value v);
  void setState(Agent &a, Value v, const ValueState &s);
  void bindAll(Agent &a, ValueRange from, ValueRange to);
  void advance(Agent &a) { ++a.stack.back().it; }

  // Control flow.
  StepResult execFor(Agent &a, scf::ForOp op);
  StepResult execIf(Agent &a, scf::IfOp op);
  StepResult execYield(Agent &a, scf::YieldOp op);
  StepResult execWarpSpecialize(Agent &a, WarpSpecializeOp op);
  StepResult execScalar(Agent &a, Operation *op);

  // Synchronization.
  StepResult execRendezvous(Agent &a, Operation *op, RendezvousKey key,
                            int64_t expected, int64_t contribution,
                            bool wait, int64_t threads);
  StepResult execBlockBarrier(Agent &a, Operation *op);
  StepResult execNamedBarrier(Agent &a, NamedBarrierOp op);
  StepResult execMBarrierWait(Agent &a, MBarrierWaitOp op);
  StepResult pollMBarrierWait(Agent &a);
  void arrive(Agent &a, Slot &slot, Operation *op);
  void tryComplete(Slot &slot);
  Slot *getSlot(Agent &a, int cta, Value array, Value index, Operation *op);

  // Memory.
  StepResult execAsyncOp(Agent &a, Operation *op);
  StepResult execTmaLoad(Agent &a, TmaLoadOp op);
  StepResult execDot(Agent &a, DotOp op);
  StepResult execWarpgroupWait(Agent &a, WarpgroupWaitOp op);
  void fence(Agent &a);
  std::optional<int64_t> getStage(Agent &a, Value buffer, Value stage,
                                  Operation *op);
  void write(Agent &a, int cta, Value buffer, int64_t stage, Access access);
  void read(Agent &a, int cta, Value buffer, int64_t stage, Access access);
  bool checkNotInflight(Agent &a, Operation *op, ValueRange operands);
  std::optional<int64_t> getLoadedElement(Agent &a, LoadScalarOp load);

  // Diagnostics.
  void violate(Operation *op, const Twine &message, Agent *a);
  void skip(const Twine &reason) {
    if (skipped.empty())
      skipped = reason.str();
  }
  bool stopped() const { return violation.has_value() || !skipped.empty(); }
  std::string name(Value v);
  std::string slotName(const Slot &s);
  std::string stageName(Value buffer, int64_t stage, int cta);
  std::string describe(Agent &a);
  std::string describeAccess(const Access &acc);

  bool isLeader(Agent &a, Operation *op);
  std::optional<RendezvousKind> getGroup(Operation *op);
  int64_t countAgents(int cta, RendezvousKind kind);

  KernelOp kernel;
  Block *kernelBody; ///< whose arguments are the path's parameters
  const Path &path;
  uint64_t maxSteps;
  /// Whether loops bounded by loaded data run shortened (execFor).
  bool shortenDataLoops;
  uint64_t steps = 0;
  /// Per scf.for: whether its bounds come from loaded data (execFor).
  DenseMap<Operation *, bool> dataBoundLoops;
  /// A shortened loop ended before any violation: agents whose loops the
  /// same data bounds may disagree from then on, so a violation is not
  /// reported (the path is skipped).
  bool shortened = false;
  int clusterSize = 1;
  unsigned numComps = 0;
  std::deque<Agent> agents;
  std::map<SlotKey, Slot> slots;
  DenseMap<unsigned, Slot *> slotByComp;
  std::map<StageKey, Stage> stages;
  std::map<RendezvousKey, Rendezvous> rendezvous;
  std::optional<Violation> violation;
  std::string skipped;
  std::unique_ptr<AsmState> asmState;
};

} // namespace

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

std::string Simulation::name(Value v) {
  if (!asmState)
    asmState = std::make_unique<AsmState>(kernel);
  std::string s;
  llvm::raw_string_ostream os(s);
  v.printAsOperand(os, *asmState);
  return s;
}

std::string Simulation::slotName(const Slot &s) {
  std::string out = llvm::formatv("{0}[{1}]", name(s.array), s.index).str();
  if (clusterSize > 1)
    out += llvm::formatv(" of program {0} of the cluster", s.cta).str();
  return out;
}

std::string Simulation::stageName(Value buffer, int64_t stage, int cta) {
  std::string out =
      llvm::formatv("stage {0} of {1}", stage, name(buffer)).str();
  if (clusterSize > 1)
    out += llvm::formatv(" in program {0} of the cluster", cta).str();
  return out;
}

std::string Simulation::describe(Agent &a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (a.partition)
    os << "the producer partition";
  else
    os << "warp " << a.warp << " (warpgroup " << a.warp / 4 << ")";
  os << " of program (" << a.pid[0] << ", " << a.pid[1] << ", " << a.pid[2]
     << ")";
  for (const Frame &f : a.stack) {
    if (!isa<scf::ForOp>(f.owner))
      continue;
    os << ", iteration " << (f.iv - f.lb) / f.step << " of the loop at "
       << getLineOf(f.owner);
  }
  return s;
}

std::string Simulation::describeAccess(const Access &acc) {
  std::string who = acc.agent < agents.size()
                        ? (agents[acc.agent].partition
                               ? std::string("the producer")
                               : llvm::formatv("warp {0}",
                                               agents[acc.agent].warp)
                                     .str())
                        : "?";
  return llvm::formatv("the {0} at {1} ({2})", acc.op->getName(),
                       getLineOf(acc.op), who)
      .str();
}

void Simulation::violate(Operation *op, const Twine &message, Agent *a) {
  if (violation)
    return;
  Violation v;
  v.op = op;
  v.message = message.str();
  if (a)
    v.where = describe(*a);
  violation = std::move(v);
}

//===----------------------------------------------------------------------===//
// Setup and scheduling
//===----------------------------------------------------------------------===//

void Simulation::createAgents() {
  clusterSize = kernel.getClusterSize();
  int warps = kernel.getNumWarps();
  bool specialized = false;
  kernel.walk([&](WarpSpecializeOp) { specialized = true; });
  SmallVector<int64_t, 3> shape = {1, 1, 1};
  if (std::optional<ArrayRef<int32_t>> c = kernel.getCluster())
    for (auto [i, d] : llvm::enumerate(*c))
      if (i < 3)
        shape[i] = d;
  for (int cta = 0; cta < clusterSize; ++cta) {
    int64_t r[3] = {cta % shape[0], (cta / shape[0]) % shape[1],
                    cta / (shape[0] * shape[1])};
    for (int w = 0; w < warps + (specialized ? 1 : 0); ++w) {
      Agent &a = agents.emplace_back();
      a.index = agents.size() - 1;
      a.cta = cta;
      a.warp = w;
      a.partition = w == warps;
      a.comp = numComps++;
      a.cpComp = numComps++;
      a.wgComp = numComps++;
      a.bulkComp = numComps++;
      a.clusterRank = cta;
      for (int d = 0; d < 3; ++d)
        a.pid[d] = path.firstProgram[d] + r[d];
      Block &body = kernel.getBody().front();
      a.stack.push_back({kernel, &body, body.begin()});
      a.tick();
    }
  }
}

/// The agents, producer partitions first.
SmallVector<Agent *> Simulation::producersFirst() {
  SmallVector<Agent *> order;
  for (Agent &a : agents)
    if (a.partition)
      order.push_back(&a);
  for (Agent &a : agents)
    if (!a.partition)
      order.push_back(&a);
  return order;
}

PathResult Simulation::run() {
  createAgents();
  SmallVector<Agent *> order = producersFirst();
  while (!stopped()) {
    bool progress = false, allDone = true;
    // Producers first: a consumer then meets the copies it must wait for
    // (a read before its wait reports as such, not as the later overwrite).
    for (Agent *ap : order) {
      Agent &a = *ap;
      if (a.status == Status::Done)
        continue;
      StepResult r = runAgent(a, 256);
      if (r == StepResult::Stop)
        break;
      progress |= r == StepResult::Progress;
      allDone &= a.status == Status::Done;
    }
    if (stopped())
      break;
    if (allDone) {
      finish();
      break;
    }
    if (!progress) {
      reportDeadlock();
      break;
    }
  }
  if (violation && shortened) {
    skip(llvm::formatv("a loop bounded by loaded data ran shortened (at most "
                       "{0} iterations) before {1}",
                       2 * kDataTrips - 1, getLineOf(violation->op)));
    violation.reset();
  }
  PathResult result;
  result.violation = violation;
  result.skipped = skipped;
  result.steps = steps;
  result.ranOut = steps > maxSteps;
  return result;
}

StepResult Simulation::runAgent(Agent &a, unsigned budget) {
  bool progress = false;
  for (unsigned i = 0; i < budget && a.status != Status::Done; ++i) {
    if (++steps > maxSteps) {
      skip(llvm::formatv("the path needs more than {0} steps", maxSteps));
      return StepResult::Stop;
    }
    StepResult r = step(a);
    if (r == StepResult::Stop || stopped())
      return StepResult::Stop;
    if (r == StepResult::Blocked)
      break;
    progress = true;
  }
  return progress ? StepResult::Progress : StepResult::Blocked;
}

StepResult Simulation::step(Agent &a) {
  if (a.status == Status::Rendezvous)
    return StepResult::Blocked;
  if (a.status == Status::Waiting)
    return pollMBarrierWait(a);
  Frame &f = a.stack.back();
  if (f.it == f.block->end()) {
    // The end of a tile.warp_specialize region (no terminator).
    a.stack.pop_back();
    advance(a);
    return StepResult::Progress;
  }
  Operation *op = &*f.it;
  return TypeSwitch<Operation *, StepResult>(op)
      .Case([&](scf::ForOp o) { return execFor(a, o); })
      .Case([&](scf::IfOp o) { return execIf(a, o); })
      .Case([&](scf::YieldOp o) { return execYield(a, o); })
      .Case([&](WarpSpecializeOp o) { return execWarpSpecialize(a, o); })
      .Case([&](ReturnOp) {
        a.status = Status::Done;
        return StepResult::Progress;
      })
      .Case([&](BarrierOp) { return execBlockBarrier(a, op); })
      .Case([&](MBarrierAllocOp) { return execBlockBarrier(a, op); })
      .Case([&](ClusterBarrierOp) {
        int64_t all = agents.size();
        return execRendezvous(a, op, {-1, Cluster, 0}, all, 1, true, -1);
      })
      .Case([&](NamedBarrierOp o) { return execNamedBarrier(a, o); })
      .Case([&](MBarrierWaitOp o) { return execMBarrierWait(a, o); })
      .Case([&](LoadScalarOp o) { return execScalar(a, o); })
      .Default([&](Operation *op) {
        if (isa<TileDialect>(op->getDialect()))
          return execAsyncOp(a, op);
        return execScalar(a, op);
      });
}

void Simulation::finish() {
  for (auto &[key, slot] : slots) {
    if (slot.arrived == 0 && slot.txExpected == 0 && slot.txLanded == 0)
      continue;
    violate(slot.lastOp ? slot.lastOp : slot.array.getDefiningOp(),
            llvm::formatv("the kernel ends with phase {0} of {1} incomplete: "
                          "{2} of {3} arrivals, {4} of {5} expected "
                          "transaction bytes",
                          slot.phase, slotName(slot), slot.arrived,
                          slot.count, slot.txLanded, slot.txExpected),
            nullptr);
    return;
  }
  for (Agent &a : agents) {
    if (a.bulkIssued > a.bulkRetired)
      return violate(a.lastBulk,
                     "the kernel ends while this tile.tma_store may still "
                     "read shared memory (no tile.tma_store_wait after it)",
                     &a);
    if (a.lastCp && a.cpLastCopyGroup > a.cpRetired)
      return violate(a.lastCp,
                     "the kernel ends with cp.async copies in flight (no "
                     "tile.async_wait after them)",
                     &a);
    if (a.wgIssued > a.wgRetired)
      return violate(a.lastWgmma,
                     "the kernel ends with this wgmma in flight (no "
                     "tile.warpgroup_wait after it)",
                     &a);
  }
}

void Simulation::reportDeadlock() {
  // Producers first: their wait is usually the cause of the consumers'.
  SmallVector<Agent *> order = producersFirst();
  // mbarrier waits before barrier rendezvous: a warp parked at the final
  // cluster barrier is a consequence, not the cause.
  std::stable_partition(order.begin(), order.end(), [](Agent *a) {
    return a->status == Status::Waiting;
  });
  for (Agent *ap : order) {
    Agent &a = *ap;
    if (a.status == Status::Done)
      continue;
    Operation *op = &*a.stack.back().it;
    if (a.status == Status::Waiting) {
      Slot &s = *a.waitSlot;
      return violate(
          op,
          llvm::formatv("deadlock: waits for phase {0} of {1} (parity {2}), "
                        "which never completes: {3} of {4} arrivals, {5} of "
                        "{6} expected transaction bytes",
                        a.waitPhase, slotName(s), a.waitPhase % 2, s.arrived,
                        s.count, s.txLanded, s.txExpected),
          &a);
    }
    std::string what = "a barrier";
    for (auto &[key, rv] : rendezvous)
      if (llvm::is_contained(rv.waiters, a.index))
        what = llvm::formatv("a barrier that gets {0} of its {1} {2}", rv.have,
                             rv.expected,
                             rv.threads >= 0 ? "threads" : "warps")
                   .str();
    return violate(op, "deadlock: waits at " + what, &a);
  }
}

//===----------------------------------------------------------------------===//
// Values and control flow
//===----------------------------------------------------------------------===//

std::optional<int64_t> Simulation::getInt(Agent &a, Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() == kernelBody) {
      auto it = path.args.find(arg.getArgNumber());
      if (it == path.args.end())
        return std::nullopt;
      return it->second;
    }
  }
  auto it = a.ints.find(v);
  if (it == a.ints.end())
    return std::nullopt;
  return it->second;
}

std::optional<int64_t> Simulation::needInt(Agent &a, Value v, Operation *op,
                                           StringRef what) {
  std::optional<int64_t> r = getInt(a, v);
  if (r)
    return r;
  // The first value on the way back that the model could not compute.
  Value root = v;
  for (int depth = 0; depth < 64; ++depth) {
    Operation *def = root.getDefiningOp();
    if (!def)
      break;
    auto unknown = llvm::find_if(def->getOperands(), [&](Value x) {
      return !getInt(a, x) && isScalarInt(x.getType());
    });
    if (unknown == def->operand_end())
      break;
    root = *unknown;
  }
  std::string from;
  if (Operation *def = root.getDefiningOp())
    from = llvm::formatv(" (it depends on the {0} at {1})", def->getName(),
                         getLineOf(def))
               .str();
  skip(llvm::formatv("the {0} of the {1} at {2} is not a function of the "
                     "kernel's integer parameters{3}",
                     what, op->getName(), getLineOf(op), from));
  return std::nullopt;
}

// The lookups below skip empty maps: loops carry mostly integers, and most
// of the time no wgmma accumulator is in flight (the simulator binds loop
// values on every iteration, millions of times for a grouped GEMM).

ValueState Simulation::getState(Agent &a, Value v) {
  ValueState s;
  s.integer = getInt(a, v);
  if (!a.inflight.empty())
    if (auto it = a.inflight.find(v); it != a.inflight.end())
      s.inflight = it->second;
  if (!a.views.empty())
    if (auto it = a.views.find(v); it != a.views.end())
      s.stageView = it->second;
  return s;
}

void Simulation::setState(Agent &a, Value v, const ValueState &s) {
  if (s.integer)
    a.ints[v] = *s.integer;
  else
    a.ints.erase(v);
  if (s.inflight)
    a.inflight[v] = *s.inflight;
  else if (!a.inflight.empty())
    a.inflight.erase(v);
  if (s.stageView)
    a.views[v] = *s.stageView;
  else if (!a.views.empty())
    a.views.erase(v);
}

void Simulation::bindAll(Agent &a, ValueRange from, ValueRange to) {
  SmallVector<ValueState, 8> states;
  for (Value v : from)
    states.push_back(getState(a, v));
  for (auto [v, s] : llvm::zip(to, states))
    setState(a, v, s);
  // The dot each in-flight value came from, for messages.
  if (a.inflightDot.empty())
    return;
  for (auto [f, t] : llvm::zip(from, to))
    if (Operation *dot = a.inflightDot.lookup(f))
      a.inflightDot[t] = dot;
}

StepResult Simulation::execFor(Agent &a, scf::ForOp op) {
  std::optional<int64_t> lb = needInt(a, op.getLowerBound(), op, "lower bound");
  std::optional<int64_t> ub = needInt(a, op.getUpperBound(), op, "upper bound");
  std::optional<int64_t> st = needInt(a, op.getStep(), op, "step");
  if (!lb || !ub || !st)
    return StepResult::Stop;
  if (*st <= 0) {
    skip(llvm::formatv("the loop at {0} has step {1}", getLineOf(op), *st));
    return StepResult::Stop;
  }
  if (*lb >= *ub) {
    bindAll(a, op.getInitArgs(), op.getResults());
    advance(a);
    return StepResult::Progress;
  }
  // Bounds from loaded data: at most about 2 x kDataTrips iterations (the
  // file's comment, "Data").
  int64_t trips = (*ub - *lb + *st - 1) / *st;
  bool shorten = false;
  if (shortenDataLoops && trips > 2 * kDataTrips) {
    auto [it, fresh] = dataBoundLoops.try_emplace(op, false);
    if (fresh)
      it->second = dependsOnLoadedData(op.getLowerBound()) ||
                   dependsOnLoadedData(op.getUpperBound());
    shorten = it->second;
    if (shorten)
      ub = *lb + (kDataTrips + trips % kDataTrips) * *st;
  }
  Block *body = op.getBody();
  a.ints[op.getInductionVar()] = *lb;
  bindAll(a, op.getInitArgs(), op.getRegionIterArgs());
  a.stack.push_back({op, body, body->begin(), *lb, *lb, *ub, *st});
  a.stack.back().shortened = shorten;
  return StepResult::Progress;
}

StepResult Simulation::execIf(Agent &a, scf::IfOp op) {
  std::optional<int64_t> cond = needInt(a, op.getCondition(), op, "condition");
  if (!cond)
    return StepResult::Stop;
  Region &region = *cond ? op.getThenRegion() : op.getElseRegion();
  if (region.empty()) {
    advance(a);
    return StepResult::Progress;
  }
  Block *block = &region.front();
  a.stack.push_back({op, block, block->begin()});
  return StepResult::Progress;
}

StepResult Simulation::execYield(Agent &a, scf::YieldOp op) {
  Frame &f = a.stack.back();
  if (auto loop = dyn_cast<scf::ForOp>(f.owner)) {
    if (f.iv + f.step < f.ub) {
      f.iv += f.step;
      bindAll(a, op.getOperands(), loop.getRegionIterArgs());
      a.ints[loop.getInductionVar()] = f.iv;
      f.it = f.block->begin();
      return StepResult::Progress;
    }
    SmallVector<Value> operands(op.getOperands());
    shortened |= f.shortened && !violation;
    a.stack.pop_back();
    bindAll(a, operands, loop.getResults());
    advance(a);
    return StepResult::Progress;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(f.owner)) {
    SmallVector<Value> operands(op.getOperands());
    a.stack.pop_back();
    bindAll(a, operands, ifOp.getResults());
    advance(a);
    return StepResult::Progress;
  }
  skip(llvm::formatv("scf.yield in a {0}", f.owner->getName()));
  return StepResult::Stop;
}

StepResult Simulation::execWarpSpecialize(Agent &a, WarpSpecializeOp op) {
  Region &region =
      a.partition ? op.getPartitionRegion() : op.getDefaultRegion();
  Block *block = &region.front();
  a.stack.push_back({op, block, block->begin()});
  return StepResult::Progress;
}

/// Sizes of consecutive groups that element i of a view read by
/// tile.load_scalar closes: the model's memory, an increasing sequence of
/// group ends (a grouped GEMM's offsets: empty groups, groups of one row,
/// of less than a tile, of whole and ragged tiles).
static constexpr int64_t kModelGroupSizes[] = {0, 1, 130, 16, 0, 257, 65, 3};

/// Element `i` of the model's memory: the end of group i, the sum of the
/// sizes of groups 0..i.
static int64_t getModelGroupEnd(int64_t i) {
  constexpr int64_t n = std::size(kModelGroupSizes);
  int64_t cycle = 0;
  for (int64_t size : kModelGroupSizes)
    cycle += size;
  int64_t end = (i / n) * cycle;
  for (int64_t j = 0; j <= i % n; ++j)
    end += kModelGroupSizes[j];
  return end;
}

/// The position of the element `load` reads in its view's row-major order
/// (the index itself for a 1-D view), or std::nullopt where an index or,
/// past one dimension, a size is unknown or the view is not a
/// tile.make_view.
std::optional<int64_t> Simulation::getLoadedElement(Agent &a,
                                                    LoadScalarOp load) {
  OperandRange indices = load.getIndices();
  auto view = load.getView().getDefiningOp<MakeViewOp>();
  if (indices.size() != 1 && !view)
    return std::nullopt;
  int64_t linear = 0;
  for (auto [dim, index] : llvm::enumerate(indices)) {
    std::optional<int64_t> size = 1, i = getInt(a, index);
    if (dim > 0) {
      OpFoldResult s = view.getMixedSize(dim);
      if (auto attr = dyn_cast<Attribute>(s))
        size = cast<IntegerAttr>(attr).getInt();
      else
        size = getInt(a, cast<Value>(s));
    }
    if (!i || !size || *i < 0)
      return std::nullopt;
    linear = linear * *size + *i;
  }
  return linear;
}

StepResult Simulation::execScalar(Agent &a, Operation *op) {
  if (!checkNotInflight(a, op, op->getOperands()))
    return StepResult::Stop;
  // Data the control flow reads (tile.load_scalar) comes from the model's
  // memory.
  if (auto load = dyn_cast<LoadScalarOp>(op)) {
    std::optional<int64_t> i = getLoadedElement(a, load);
    if (i && *i >= 0)
      a.ints[load.getResult()] = getModelGroupEnd(*i);
    else
      a.ints.erase(load.getResult());
    advance(a);
    return StepResult::Progress;
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    if (auto attr = dyn_cast<IntegerAttr>(cst.getValue()))
      a.ints[cst.getResult()] =
          attr.getType().isInteger(1) ? attr.getValue().getBoolValue()
                                      : attr.getValue().getSExtValue();
    advance(a);
    return StepResult::Progress;
  }
  if (op->getNumResults() == 1 && isScalarInt(op->getResult(0).getType())) {
    SmallVector<int64_t, 3> in;
    bool known = true;
    for (Value v : op->getOperands()) {
      std::optional<int64_t> x = getInt(a, v);
      known &= x.has_value();
      in.push_back(x.value_or(0));
    }
    std::optional<int64_t> r = known ? evalScalar(op, in) : std::nullopt;
    if (r)
      a.ints[op->getResult(0)] = *r;
    else
      a.ints.erase(op->getResult(0));
  }
  advance(a);
  return StepResult::Progress;
}

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

std::optional<RendezvousKind> Simulation::getGroup(Operation *op) {
  auto ws = op->getParentOfType<WarpSpecializeOp>();
  if (!ws)
    return BlockAll;
  return ws.getPartitionRegion().isAncestor(op->getParentRegion())
             ? BlockPartition
             : BlockDefault;
}

int64_t Simulation::countAgents(int cta, RendezvousKind kind) {
  return llvm::count_if(agents, [&](const Agent &a) {
    if (a.cta != cta)
      return false;
    if (kind == BlockDefault)
      return !a.partition;
    if (kind == BlockPartition)
      return a.partition;
    return true;
  });
}

bool Simulation::isLeader(Agent &a, Operation *op) {
  return *getGroup(op) == BlockPartition ? a.partition : a.warp == 0;
}

StepResult Simulation::execRendezvous(Agent &a, Operation *op,
                                      RendezvousKey key, int64_t expected,
                                      int64_t contribution, bool wait,
                                      int64_t threads) {
  Rendezvous &rv = rendezvous[key];
  rv.expected = expected;
  if (threads >= 0) {
    if (rv.threads >= 0 && rv.threads != threads) {
      violate(op,
              llvm::formatv("named barrier {0} is used with {1} threads here "
                            "and {2} threads by another warp in the same phase",
                            std::get<2>(key), threads, rv.threads),
              &a);
      return StepResult::Stop;
    }
    rv.threads = threads;
  }
  a.tick();
  rv.acc.join(a.clock);
  rv.have += contribution;
  if (rv.have > rv.expected) {
    violate(op,
            llvm::formatv("named barrier {0} gets more than its {1} threads",
                          std::get<2>(key), rv.expected),
            &a);
    return StepResult::Stop;
  }
  if (wait) {
    rv.waiters.push_back(a.index);
    a.status = Status::Rendezvous;
  } else {
    advance(a);
  }
  if (rv.have == rv.expected) {
    Rendezvous done = std::move(rv);
    rendezvous.erase(key);
    for (unsigned w : done.waiters) {
      Agent &b = agents[w];
      b.clock.join(done.acc);
      b.tick();
      b.status = Status::Ready;
      advance(b);
    }
  }
  return StepResult::Progress;
}

StepResult Simulation::execBlockBarrier(Agent &a, Operation *op) {
  RendezvousKind kind = *getGroup(op);
  return execRendezvous(a, op, {a.cta, kind, 0}, countAgents(a.cta, kind), 1,
                        true, -1);
}

StepResult Simulation::execNamedBarrier(Agent &a, NamedBarrierOp op) {
  std::optional<int64_t> id = needInt(a, op.getId(), op, "barrier id");
  if (!id)
    return StepResult::Stop;
  int64_t threads = op.getThreads();
  return execRendezvous(a, op, {a.cta, Named, *id}, threads, 32,
                        !op.getArrive(), threads);
}

Slot *Simulation::getSlot(Agent &a, int cta, Value array, Value index,
                          Operation *op) {
  std::optional<int64_t> i = needInt(a, index, op, "barrier index");
  if (!i)
    return nullptr;
  auto type = cast<MBarrierType>(array.getType());
  if (*i < 0 || *i >= type.getSize()) {
    violate(op,
            llvm::formatv("barrier index {0} is outside {1} ({2} barriers)",
                          *i, name(array), type.getSize()),
            &a);
    return nullptr;
  }
  SlotKey key{cta, array.getAsOpaquePointer(), *i};
  auto it = slots.find(key);
  if (it != slots.end())
    return &it->second;
  Slot &s = slots[key];
  s.cta = cta;
  s.array = array;
  s.index = *i;
  s.comp = numComps++;
  if (auto alloc = array.getDefiningOp<MBarrierAllocOp>())
    s.count = alloc.getCount();
  slotByComp[s.comp] = &s;
  return &s;
}

void Simulation::arrive(Agent &a, Slot &slot, Operation *op) {
  if (slot.phase > 0 && a.clock.get(slot.comp) < slot.phase) {
    violate(op,
            llvm::formatv("{0} on {1} may count toward phase {2}: nothing "
                          "orders it after that phase completes ({3})",
                          isa<TmaLoadOp>(op) ? "the bytes of this TMA load"
                                             : "this arrival",
                          slotName(slot), slot.phase - 1,
                          isa<TmaLoadOp>(op)
                              ? "more bytes than that phase expects, or a "
                                "refill before its release"
                              : "an extra arrival, or a refill or release "
                                "before the stage was consumed"),
            &a);
    return;
  }
  slot.acc.join(a.clock);
  slot.lastOp = op;
}

void Simulation::tryComplete(Slot &slot) {
  if (slot.arrived < slot.count)
    return;
  if (slot.txLanded > slot.txExpected) {
    violate(slot.lastOp,
            llvm::formatv("the TMA copies completing on {0} in phase {1} "
                          "deliver {2} bytes, but expect_tx announced {3}",
                          slotName(slot), slot.phase, slot.txLanded,
                          slot.txExpected),
            nullptr);
    return;
  }
  if (slot.txLanded < slot.txExpected)
    return;
  Clock done = slot.acc;
  done.set(slot.comp, slot.phase + 1);
  slot.completions.push_back(done);
  Time completed = slot.phase++;
  slot.arrived = slot.txExpected = slot.txLanded = 0;
  slot.acc = Clock();
  for (const Slot::Obligation &ob : slot.obligations) {
    if (ob.phase != completed || done.knows(ob.epoch))
      continue;
    Violation v;
    v.op = ob.wait;
    v.message = llvm::formatv(
        "parity {0} names two phases of {1} here: phase {2} can complete "
        "before this wait executes, and the wait then blocks until phase {3}",
        ob.parity, slotName(slot), completed, completed + 2);
    v.where = ob.where;
    if (!violation)
      violation = std::move(v);
    return;
  }
  llvm::erase_if(slot.obligations, [&](const Slot::Obligation &ob) {
    return ob.phase <= completed;
  });
}

StepResult Simulation::execMBarrierWait(Agent &a, MBarrierWaitOp op) {
  Slot *slot = getSlot(a, a.cta, op.getBarriers(), op.getIndex(), op);
  std::optional<int64_t> parity = needInt(a, op.getParity(), op, "parity");
  if (!slot || !parity)
    return StepResult::Stop;
  a.tick();
  Time k = a.clock.get(slot->comp);
  Time p = *parity & 1;
  // Parity p names phase k-1 (complete, known) or phase k (to wait for).
  bool namesDone = (k % 2) != p;
  Time named = namesDone ? k - 1 : k; // k-1 wraps for k = 0: the fresh phase
  Time next = named + 1;
  if (slot->phase > next) {
    violate(op,
            llvm::formatv("parity {0} does not name the phase this warp "
                          "waits for on {1}: it has seen {2} phase(s) "
                          "complete, but {3} have",
                          p, slotName(*slot), k, slot->phase),
            &a);
    return StepResult::Stop;
  }
  slot->obligations.push_back({next, p, a.epoch(), op, describe(a)});
  if (namesDone) {
    advance(a);
    return StepResult::Progress;
  }
  a.status = Status::Waiting;
  a.waitSlot = slot;
  a.waitPhase = named;
  return pollMBarrierWait(a);
}

StepResult Simulation::pollMBarrierWait(Agent &a) {
  Slot &slot = *a.waitSlot;
  if (slot.phase <= a.waitPhase)
    return StepResult::Blocked;
  a.clock.join(slot.completions[a.waitPhase]);
  a.tick();
  a.status = Status::Ready;
  a.waitSlot = nullptr;
  advance(a);
  return StepResult::Progress;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

std::optional<int64_t> Simulation::getStage(Agent &a, Value buffer,
                                            Value stage, Operation *op) {
  std::optional<int64_t> s = needInt(a, stage, op, "stage");
  if (!s)
    return std::nullopt;
  int64_t n = cast<SmemType>(buffer.getType()).getNumStages();
  if (*s < 0 || *s >= n) {
    violate(op,
            llvm::formatv("stage {0} is outside {1} ({2} stages)", *s,
                          name(buffer), n),
            &a);
    return std::nullopt;
  }
  return s;
}

void Simulation::write(Agent &a, int cta, Value buffer, int64_t stage,
                       Access access) {
  Stage &st = stages[{cta, buffer.getAsOpaquePointer(), stage}];
  for (const Access &r : llvm::concat<const Access>(st.reads, st.priorReads)) {
    if (a.clock.knows(r.epoch))
      continue;
    if (r.unfilledWhere) {
      Violation v;
      v.op = r.op;
      v.message = llvm::formatv(
          "reads {0} before {1} fills it: nothing orders this read after "
          "that write (a missing wait)",
          stageName(buffer, stage, cta), describeAccess(access));
      v.where = *r.unfilledWhere;
      violation = std::move(v);
      return;
    }
    bool async = r.kind == Access::Wgmma || r.kind == Access::TmaStore;
    return violate(
        access.op,
        llvm::formatv("overwrites {0} while {1} may still read it: {2}",
                      stageName(buffer, stage, cta), describeAccess(r),
                      async ? "no wait retires that read and releases the "
                              "stage before this write"
                            : "no barrier orders that read before this write"),
        &a);
  }
  if (llvm::all_of(st.writes,
                   [&](const Access &w) { return a.clock.knows(w.epoch); })) {
    st.writes.clear();
    st.priorReads = std::move(st.reads);
    st.reads.clear();
  }
  st.writes.push_back(access);
}

void Simulation::read(Agent &a, int cta, Value buffer, int64_t stage,
                      Access access) {
  Stage &st = stages[{cta, buffer.getAsOpaquePointer(), stage}];
  for (const Access &w : st.writes) {
    if (!a.clock.knows(w.epoch)) {
      std::string why;
      if (w.kind == Access::Tma) {
        Slot *s = slotByComp.lookup(w.epoch.comp);
        why = llvm::formatv("no wait on {0} for phase {1} (parity {2}) "
                            "covers it",
                            s ? slotName(*s) : "its barrier", w.epoch.time - 1,
                            (w.epoch.time - 1) % 2)
                  .str();
      } else if (w.kind == Access::CpAsync) {
        why = "its copies have not landed and been made visible "
              "(tile.async_wait, then tile.barrier)";
      } else {
        why = "no barrier orders that write before this read";
      }
      return violate(access.op,
                     llvm::formatv("reads {0} before {1} is complete: {2}",
                                   stageName(buffer, stage, cta),
                                   describeAccess(w), why),
                     &a);
    }
    if (access.isAsyncProxyRead() && w.isGenericWrite() &&
        (!w.fence || !a.clock.knows(*w.fence)))
      return violate(
          access.op,
          llvm::formatv("reads {0} through the async proxy, but {1} wrote it "
                        "through the generic proxy with no "
                        "tile.fence_async_shared (then a barrier) in between",
                        stageName(buffer, stage, cta), describeAccess(w)),
          &a);
  }
  if (st.writes.empty() && st.priorReads.empty())
    access.unfilledWhere = describe(a);
  st.reads.push_back(access);
}

void Simulation::fence(Agent &a) {
  a.tick();
  for (auto &[key, st] : stages) {
    if (std::get<0>(key) != a.cta)
      continue;
    for (Access &w : st.writes)
      if (w.agent == a.index && w.isGenericWrite() && !w.fence &&
          a.clock.knows(w.epoch))
        w.fence = a.epoch();
  }
}

bool Simulation::checkNotInflight(Agent &a, Operation *op,
                                  ValueRange operands) {
  // Most operations run with no wgmma accumulator in flight.
  if (a.inflight.empty())
    return true;
  for (Value v : operands) {
    auto it = a.inflight.find(v);
    if (it == a.inflight.end())
      continue;
    Operation *dot = a.inflightDot.lookup(v);
    violate(op,
            llvm::formatv("uses {0}, the accumulator of the wgmma at {1}, "
                          "before a tile.warpgroup_wait returns it{2}",
                          name(v), dot ? getLineOf(dot) : "?",
                          it->second > a.wgRetired
                              ? " (its group is still in flight)"
                              : ""),
            &a);
    return false;
  }
  return true;
}

StepResult Simulation::execDot(Agent &a, DotOp op) {
  if (!isWgmma(op)) {
    if (!checkNotInflight(a, op, op->getOperands()))
      return StepResult::Stop;
    advance(a);
    return StepResult::Progress;
  }
  if (!checkNotInflight(a, op, {op.getA(), op.getB()}))
    return StepResult::Stop;
  a.tick();
  Time group = a.wgIssued + 1;
  for (Value operand : {op.getA(), op.getB()}) {
    auto it = a.views.find(operand);
    if (it == a.views.end())
      continue;
    read(a, a.cta, it->second.first, it->second.second,
         {Access::Wgmma, {a.wgComp, group}, a.index, op, {}});
    if (stopped())
      return StepResult::Stop;
  }
  a.wgIssued = group;
  a.lastWgmma = op;
  a.inflight[op.getResult()] = group;
  a.inflightDot[op.getResult()] = op;
  advance(a);
  return StepResult::Progress;
}

StepResult Simulation::execWarpgroupWait(Agent &a, WarpgroupWaitOp op) {
  a.retire(a.wgIssued, a.wgRetired, a.wgComp, op.getPending());
  // A result whose group may still be pending (`wait 1` on the newest
  // group) stays in flight: only another wgmma may take it as accumulator.
  for (auto [v, r] : llvm::zip(op.getValues(), op.getResults())) {
    ValueState s = getState(a, v);
    if (s.inflight && *s.inflight <= a.wgRetired)
      s.inflight.reset();
    setState(a, r, s);
    if (Operation *dot = a.inflightDot.lookup(v))
      a.inflightDot[r] = dot;
  }
  advance(a);
  return StepResult::Progress;
}

StepResult Simulation::execTmaLoad(Agent &a, TmaLoadOp op) {
  std::optional<int64_t> stage =
      getStage(a, op.getBuffer(), op.getStage(), op);
  if (!stage)
    return StepResult::Stop;
  int64_t parts = op.getParts(), part = 0;
  if (op.getPart()) {
    std::optional<int64_t> p = needInt(a, op.getPart(), op, "part");
    if (!p)
      return StepResult::Stop;
    part = *p;
    if (part < 0 || part >= parts) {
      violate(op, llvm::formatv("part {0} of {1} does not exist", part, parts),
              &a);
      return StepResult::Stop;
    }
  }
  uint64_t mask = uint64_t(1) << a.cta;
  if (op.getCtaMask()) {
    std::optional<int64_t> m = needInt(a, op.getCtaMask(), op, "multicast mask");
    if (!m)
      return StepResult::Stop;
    mask = static_cast<uint64_t>(*m);
    if (mask == 0 || (clusterSize < 64 && (mask >> clusterSize) != 0)) {
      violate(op,
              llvm::formatv("multicast mask {0:x} selects no program or one "
                            "outside the cluster of {1}",
                            mask, clusterSize),
              &a);
      return StepResult::Stop;
    }
  }
  auto buffer = cast<SmemType>(op.getBuffer().getType());
  int64_t bytes = buffer.getTileElems() *
                  (buffer.getElementType().getIntOrFloatBitWidth() / 8) / parts;
  a.tick();
  for (int cta = 0; cta < clusterSize; ++cta) {
    if (!(mask >> cta & 1))
      continue;
    Slot *slot = getSlot(a, cta, op.getBarriers(), op.getIndex(), op);
    if (!slot)
      return StepResult::Stop;
    arrive(a, *slot, op);
    if (stopped())
      return StepResult::Stop;
    write(a, cta, op.getBuffer(), *stage,
          {Access::Tma, {slot->comp, slot->phase + 1}, a.index, op, {}});
    if (stopped())
      return StepResult::Stop;
    slot->txLanded += bytes;
    tryComplete(*slot);
    if (stopped())
      return StepResult::Stop;
  }
  advance(a);
  return StepResult::Progress;
}

StepResult Simulation::execAsyncOp(Agent &a, Operation *op) {
  auto done = [&]() {
    if (stopped())
      return StepResult::Stop;
    advance(a);
    return StepResult::Progress;
  };
  if (auto dot = dyn_cast<DotOp>(op))
    return execDot(a, dot);
  if (auto wait = dyn_cast<WarpgroupWaitOp>(op))
    return execWarpgroupWait(a, wait);
  if (!checkNotInflight(a, op, op->getOperands()))
    return StepResult::Stop;
  // Ops of the leader thread only.
  if (isa<TmaLoadOp, MBarrierExpectTxOp, TmaStoreOp, TmaStoreWaitOp>(op) &&
      !isLeader(a, op)) {
    advance(a);
    return StepResult::Progress;
  }
  if (auto load = dyn_cast<TmaLoadOp>(op))
    return execTmaLoad(a, load);
  if (auto expect = dyn_cast<MBarrierExpectTxOp>(op)) {
    Slot *slot = getSlot(a, a.cta, expect.getBarriers(), expect.getIndex(), op);
    if (!slot)
      return StepResult::Stop;
    a.tick();
    arrive(a, *slot, op);
    slot->arrived += 1;
    slot->txExpected += expect.getBytes();
    tryComplete(*slot);
    return done();
  }
  if (auto arr = dyn_cast<MBarrierArriveOp>(op)) {
    int cta = a.cta;
    if (arr.getCta()) {
      std::optional<int64_t> r = needInt(a, arr.getCta(), op, "program");
      if (!r)
        return StepResult::Stop;
      if (*r < 0 || *r >= clusterSize) {
        violate(op,
                llvm::formatv("arrives at program {0} of a cluster of {1}", *r,
                              clusterSize),
                &a);
        return StepResult::Stop;
      }
      cta = *r;
    }
    Slot *slot = getSlot(a, cta, arr.getBarriers(), arr.getIndex(), op);
    if (!slot)
      return StepResult::Stop;
    a.tick();
    arrive(a, *slot, op);
    slot->arrived += 1;
    tryComplete(*slot);
    return done();
  }
  if (auto ll = dyn_cast<LocalLoadOp>(op)) {
    std::optional<int64_t> s = getStage(a, ll.getBuffer(), ll.getStage(), op);
    if (!s)
      return StepResult::Stop;
    if (isa_and_nonnull<SharedEncodingAttr>(ll.getType().getEncoding())) {
      a.views[ll.getResult()] = {ll.getBuffer(), *s};
      return done();
    }
    a.tick();
    read(a, a.cta, ll.getBuffer(), *s,
         {Access::Load, a.epoch(), a.index, op, {}});
    return done();
  }
  if (auto ls = dyn_cast<LocalStoreOp>(op)) {
    std::optional<int64_t> s = getStage(a, ls.getBuffer(), ls.getStage(), op);
    if (!s)
      return StepResult::Stop;
    a.tick();
    write(a, a.cta, ls.getBuffer(), *s,
          {Access::Store, a.epoch(), a.index, op, {}});
    return done();
  }
  if (auto cp = dyn_cast<AsyncCopyOp>(op)) {
    std::optional<int64_t> s = getStage(a, cp.getBuffer(), cp.getStage(), op);
    if (!s)
      return StepResult::Stop;
    a.tick();
    a.lastCp = op;
    a.cpLastCopyGroup = a.cpCommitted + 1;
    write(a, a.cta, cp.getBuffer(), *s,
          {Access::CpAsync, {a.cpComp, a.cpCommitted + 1}, a.index, op, {}});
    return done();
  }
  if (isa<AsyncCommitOp>(op)) {
    ++a.cpCommitted;
    return done();
  }
  if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
    a.retire(a.cpCommitted, a.cpRetired, a.cpComp, wait.getPending());
    return done();
  }
  if (isa<FenceAsyncSharedOp>(op)) {
    fence(a);
    return done();
  }
  if (auto st = dyn_cast<TmaStoreOp>(op)) {
    std::optional<int64_t> s = getStage(a, st.getBuffer(), st.getStage(), op);
    if (!s)
      return StepResult::Stop;
    a.tick();
    read(a, a.cta, st.getBuffer(), *s,
         {Access::TmaStore, {a.bulkComp, a.bulkIssued + 1}, a.index, op, {}});
    ++a.bulkIssued;
    a.lastBulk = op;
    return done();
  }
  if (auto wait = dyn_cast<TmaStoreWaitOp>(op)) {
    a.retire(a.bulkIssued, a.bulkRetired, a.bulkComp, wait.getPending());
    return done();
  }
  if (isa<ProgramIdOp, NumProgramsOp, ClusterRankOp, WarpgroupIdOp>(op)) {
    int64_t v = TypeSwitch<Operation *, int64_t>(op)
                    .Case([&](ProgramIdOp o) {
                      return a.pid[static_cast<int>(o.getDim())];
                    })
                    .Case([&](NumProgramsOp o) {
                      return path.numPrograms[static_cast<int>(o.getDim())];
                    })
                    .Case([&](ClusterRankOp) { return a.clusterRank; })
                    .Default([&](Operation *) { return a.warp / 4; });
    a.ints[op->getResult(0)] = v;
    return done();
  }
  return done(); // tiles, views, tensor maps: no synchronization
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

PathResult async::simulate(KernelOp kernel, const Path &path, uint64_t maxSteps,
                           bool shortenDataLoops) {
  return Simulation(kernel, path, maxSteps, shortenDataLoops).run();
}

static bool isAsyncOp(Operation *op) {
  if (auto dot = dyn_cast<DotOp>(op))
    return isWgmma(dot);
  return isa<LocalAllocOp, AsyncCopyOp, AsyncCommitOp, AsyncWaitOp, BarrierOp,
             NamedBarrierOp, FenceAsyncSharedOp, WarpgroupWaitOp, LocalStoreOp,
             LocalLoadOp, TmaLoadOp, TmaStoreOp, TmaStoreWaitOp,
             MBarrierAllocOp, MBarrierExpectTxOp, MBarrierArriveOp,
             MBarrierWaitOp, WarpSpecializeOp, ClusterBarrierOp>(op);
}

bool async::hasAsyncProtocol(KernelOp kernel) {
  return kernel
      .walk([](Operation *op) {
        return isAsyncOp(op) ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

std::string async::getUnsupportedReason(KernelOp kernel) {
  std::string why;
  kernel.walk([&](Operation *op) {
    if (op->getNumRegions() == 0 ||
        isa<KernelOp, scf::ForOp, scf::IfOp, WarpSpecializeOp>(op))
      return WalkResult::advance();
    bool holdsAsync = op->walk([](Operation *inner) {
                          return isAsyncOp(inner) ? WalkResult::interrupt()
                                                  : WalkResult::advance();
                        }).wasInterrupted();
    if (!holdsAsync)
      return WalkResult::skip();
    why = llvm::formatv("the {0} at {1} holds synchronization or shared-memory "
                        "operations, and the checker runs only scf.for, "
                        "scf.if and tile.warp_specialize regions",
                        op->getName(), getLineOf(op));
    return WalkResult::interrupt();
  });
  return why;
}
