//===- FusionPlanner.cpp - benefit-ordered greedy fusion planning ---------===//
//
// Starts with one group per kernel-producing op and merges groups in order
// of estimated benefit, like XLA's PriorityFusion: candidates are
// producer/consumer edges and siblings that read the same value; each is
// checked for legality (device, kind, limits, cycles) when it comes up, and
// rejections are recorded with their reason for the fusion report.
//
//===----------------------------------------------------------------------===//

#include "passes/Fusion/FusionPlanner.h"

#include "dialects/Tandem/IR/TandemOps.h"
#include "passes/Analysis/NodeName.h"
#include "passes/Analysis/OpCost.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <deque>
#include <queue>

using namespace mlir;
using namespace mlir::tandem;

namespace {

/// The iteration space of a reduction: the reduced input and its axes.
struct ReductionShape {
  Type input;
  SmallVector<int64_t> axes;
  bool operator==(const ReductionShape &other) const {
    return input == other.input && axes == other.axes;
  }
};

ReductionShape getReductionShape(Operation *op) {
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t rank = type.getRank();
  ReductionShape shape{type, {}};
  auto normalise = [&](int64_t axis) { return axis < 0 ? axis + rank : axis; };
  llvm::TypeSwitch<Operation *>(op)
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
          [&](auto reduce) {
            for (int64_t axis : reduce.getAxes())
              shape.axes.push_back(normalise(axis));
          })
      .Case<ArgMaxOp, ArgMinOp>(
          [&](auto arg) { shape.axes.push_back(normalise(arg.getAxis())); })
      .Case<SoftmaxOp>([&](SoftmaxOp softmax) {
        shape.axes.push_back(normalise(softmax.getAxis()));
      })
      .Case<LayerNormOp>([&](LayerNormOp norm) {
        for (int64_t axis = normalise(norm.getAxis()); axis < rank; ++axis)
          shape.axes.push_back(axis);
      })
      .Case<GlobalAvgPoolOp>([&](auto) {
        for (int64_t axis = 2; axis < rank; ++axis)
          shape.axes.push_back(axis);
      });
  return shape;
}

/// Bytes `user` reads of `value`: all of it, except for ops that only pick
/// part of their input.
double readBytes(Value value, Operation *user) {
  if (isa<SliceOp, GatherOp, GatherElementsOp, GatherNDOp>(user))
    return tensorBytes(user->getResult(0).getType());
  return tensorBytes(value.getType());
}

/// Ops that may follow a matrix op in its epilogue.
bool isEpilogueOp(Operation *op) {
  return getFusionRole(op) == FusionRole::Elementwise || isa<ReshapeOp>(op);
}

std::string deviceName(DeviceAttr device) {
  return device ? device.getName() : std::string("no device");
}

/// A set of ops that becomes one kernel.
struct Group {
  bool alive = true;
  unsigned version = 0;
  /// Loop, Input or Output.
  FusionKind kind = FusionKind::Loop;
  /// The matrix op of an output group, the first reduction of an input one.
  Operation *hero = nullptr;
  std::vector<Operation *> ops;
  DeviceAttr device;
  /// The --disable-fusion-of glob that pins this op, if any.
  std::string pinnedBy;
  double bytesSaved = 0;
  std::vector<Operation *> duplicated;
};

enum class Relation { ProducerConsumer, Sibling };

/// Sibling candidates of one value consider at most this many readers, so a
/// value read everywhere (a shared weight argument) stays linear.
constexpr size_t kMaxSiblingReaders = 8;

/// A merge to consider: producer `a` into consumer `b`, or siblings.
struct Candidate {
  /// 1 when an output (matrix) group takes part: epilogues are formed
  /// first, as XLA forms library-call epilogues before loop and input
  /// fusion.
  unsigned rank;
  double benefit;
  /// Tie-breaks: the consumer's lower operand first, then first pushed.
  unsigned operandIndex;
  unsigned seq;
  Group *a, *b;
  unsigned versionA, versionB;
  Relation relation;
  /// The edge (or the two readers of a shared value) behind the candidate.
  Operation *firstOp, *secondOp;
};

struct CandidateOrder {
  /// std::priority_queue pops the greatest element.
  bool operator()(const Candidate &x, const Candidate &y) const {
    if (x.rank != y.rank)
      return x.rank < y.rank;
    if (x.benefit != y.benefit)
      return x.benefit < y.benefit;
    if (x.operandIndex != y.operandIndex)
      return x.operandIndex > y.operandIndex;
    return x.seq > y.seq;
  }
};

enum class MergeMode {
  /// The groups become one.
  Plain,
  /// A copy of the producer joins the consumer; the original stays for its
  /// other users.
  Duplicate,
};

/// The outcome of the legality checks of one candidate.
struct Verdict {
  /// Empty when the merge is legal.
  std::string reason;
  FusionKind kind = FusionKind::Loop;
  MergeMode mode = MergeMode::Plain;
};

class Planner {
public:
  Planner(Block &block, const FusionConfig &config)
      : block(block), config(config) {}

  FusionPlan run();

private:
  Group *groupOf(Operation *op) const { return groups.lookup(op); }
  /// The display name of `op` as it was when planning started (a copy has
  /// its original's), so that names stay stable while copies are inserted.
  const std::string &nameOf(Operation *op) const {
    auto [it, inserted] = names.try_emplace(op);
    if (inserted)
      it->second = getDisplayName(op);
    return it->second;
  }
  Operation *topLevel(Operation *op) const {
    return block.findAncestorOpInBlock(*op);
  }

  Group *newGroup(Operation *op);
  void seedCandidates();
  void pushCandidatesOf(Group *group);
  /// Up to kMaxSiblingReaders loop or input groups other than `exclude`
  /// that read `value` (not a constant), with one reading op each.
  SmallVector<std::pair<Group *, Operation *>>
  siblingReaders(Value value, Group *exclude) const;
  void push(Group *a, Group *b, Relation relation, Operation *first,
            Operation *second, unsigned operandIndex);
  void reject(const Candidate &candidate, const std::string &reason);

  double benefit(Group *a, Group *b, Relation relation, MergeMode mode,
                 double *bytesSaved = nullptr) const;
  Verdict judge(Group *a, Group *b, Relation relation) const;
  std::string combineKinds(Group *a, Group *b, Relation relation,
                           FusionKind &kind) const;
  bool isCheapToDuplicate(Group *group) const;
  bool hasUsersOutside(Group *group, Group *other) const;
  llvm::SetVector<Value> externalInputs(ArrayRef<Group *> members) const;
  unsigned numOutputs(ArrayRef<Group *> members) const;
  Operation *findIndirectPath(Group *from, Group *to) const;

  void merge(Group *a, Group *b, FusionKind kind, double bytesSaved);
  void duplicateInto(Group *a, Group *b, FusionKind kind, double bytesSaved);

  Block &block;
  const FusionConfig &config;
  std::deque<Group> storage;
  DenseMap<Operation *, Group *> groups;
  std::priority_queue<Candidate, std::vector<Candidate>, CandidateOrder> queue;
  unsigned seq = 0;
  /// (first op, second op, relation) -> latest reason.
  llvm::MapVector<std::tuple<Operation *, Operation *, unsigned>, std::string>
      rejections;
  std::vector<Operation *> deadOps;
  bool clonedOps = false;
  mutable DenseMap<Operation *, std::string> names;
};

} // namespace

//===----------------------------------------------------------------------===//
// Groups and candidates
//===----------------------------------------------------------------------===//

Group *Planner::newGroup(Operation *op) {
  Group &group = storage.emplace_back();
  group.ops.push_back(op);
  group.device = getDevice(op);
  switch (getFusionRole(op)) {
  case FusionRole::Matrix:
    group.kind = FusionKind::Output;
    group.hero = op;
    break;
  case FusionRole::Reduction:
    group.kind = FusionKind::Input;
    group.hero = op;
    break;
  default:
    group.kind = FusionKind::Loop;
  }
  std::string node = getNodeName(op);
  if (node.empty())
    node = getDisplayName(op);
  for (const auto &[text, glob] : config.disabledNodes)
    if (glob.match(node)) {
      group.pinnedBy = text;
      break;
    }
  groups[op] = &group;
  return &group;
}

void Planner::push(Group *a, Group *b, Relation relation, Operation *first,
                   Operation *second, unsigned operandIndex) {
  unsigned rank =
      a->kind == FusionKind::Output || b->kind == FusionKind::Output;
  Candidate c{rank,
              benefit(a, b, relation, MergeMode::Plain),
              operandIndex,
              seq++,
              a,
              b,
              a->version,
              b->version,
              relation,
              first,
              second};
  queue.push(c);
}

void Planner::seedCandidates() {
  for (Operation &op : block) {
    Group *consumer = groupOf(&op);
    for (OpOperand &operand : op.getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      if (!def)
        continue;
      Group *producer = groupOf(def);
      bool barrier = isa<TransferOp>(def) || isa<TransferOp>(&op);
      if (barrier && (producer || consumer)) {
        rejections[{def, &op, 0}] = "'tandem.transfer' is a fusion barrier";
        continue;
      }
      if (producer && consumer && producer != consumer)
        push(producer, consumer, Relation::ProducerConsumer, def, &op,
             operand.getOperandNumber());
    }
  }
  // Siblings: groups reading the same value.
  auto addSiblings = [&](Value value) {
    SmallVector<std::pair<Group *, Operation *>> readers =
        siblingReaders(value, nullptr);
    for (size_t i = 0; i < readers.size(); ++i)
      for (size_t j = i + 1; j < readers.size(); ++j)
        push(readers[i].first, readers[j].first, Relation::Sibling,
             readers[i].second, readers[j].second, 0);
  };
  for (BlockArgument arg : block.getArguments())
    addSiblings(arg);
  for (Operation &op : block)
    for (Value result : op.getResults())
      addSiblings(result);
}

SmallVector<std::pair<Group *, Operation *>>
Planner::siblingReaders(Value value, Group *exclude) const {
  SmallVector<std::pair<Group *, Operation *>> readers;
  if (Operation *def = value.getDefiningOp(); def && isa<ConstantOp>(def))
    return readers;
  for (Operation *user : value.getUsers()) {
    Operation *top = topLevel(user);
    Group *group = top ? groupOf(top) : nullptr;
    if (!group || group == exclude || group->kind == FusionKind::Output ||
        llvm::any_of(readers, [&](auto &r) { return r.first == group; }))
      continue;
    readers.push_back({group, top});
    if (readers.size() == kMaxSiblingReaders)
      break;
  }
  return readers;
}

void Planner::pushCandidatesOf(Group *group) {
  // Pairs already pushed, per relation: a pair may be both siblings and
  // producer and consumer, and each relation has its own rules.
  DenseSet<std::pair<Group *, Group *>> seenEdges, seenSiblings;
  for (Operation *op : group->ops) {
    for (OpOperand &operand : op->getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      Group *producer = def ? groupOf(def) : nullptr;
      if (producer && producer != group &&
          seenEdges.insert({producer, group}).second)
        push(producer, group, Relation::ProducerConsumer, def, op,
             operand.getOperandNumber());
      // Siblings through this operand.
      if (group->kind == FusionKind::Output)
        continue;
      for (auto [other, reader] : siblingReaders(operand.get(), group))
        if (other != producer && seenSiblings.insert({other, group}).second)
          push(group, other, Relation::Sibling, op, reader, 0);
    }
    for (OpOperand &use : op->getUses()) {
      Operation *top = topLevel(use.getOwner());
      Group *consumer = top ? groupOf(top) : nullptr;
      if (consumer && consumer != group &&
          seenEdges.insert({group, consumer}).second)
        push(group, consumer, Relation::ProducerConsumer, op, top,
             use.getOperandNumber());
    }
  }
}

void Planner::reject(const Candidate &c, const std::string &reason) {
  Operation *first = c.firstOp, *second = c.secondOp;
  // Siblings are unordered: one record per pair.
  if (c.relation == Relation::Sibling && second->isBeforeInBlock(first))
    std::swap(first, second);
  rejections[{first, second, static_cast<unsigned>(c.relation)}] = reason;
}

//===----------------------------------------------------------------------===//
// Analysis of a prospective merge
//===----------------------------------------------------------------------===//

bool Planner::hasUsersOutside(Group *group, Group *other) const {
  for (Operation *op : group->ops)
    for (Operation *user : op->getUsers()) {
      Group *g = groupOf(topLevel(user));
      if (g != group && g != other)
        return true;
    }
  return false;
}

llvm::SetVector<Value>
Planner::externalInputs(ArrayRef<Group *> members) const {
  llvm::SetVector<Value> inputs;
  for (Group *group : members)
    for (Operation *op : group->ops)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && llvm::is_contained(members, groupOf(def)))
          continue;
        if (def && isInlinableConstant(def, config))
          continue;
        inputs.insert(operand);
      }
  return inputs;
}

unsigned Planner::numOutputs(ArrayRef<Group *> members) const {
  unsigned count = 0;
  for (Group *group : members)
    for (Operation *op : group->ops)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !llvm::is_contained(members, groupOf(topLevel(user)));
            }))
          ++count;
  return count;
}

bool Planner::isCheapToDuplicate(Group *group) const {
  if (group->kind != FusionKind::Loop || !group->pinnedBy.empty())
    return false;
  for (Operation *op : group->ops) {
    FusionRole role = getFusionRole(op);
    if ((role != FusionRole::Elementwise && role != FusionRole::Layout) ||
        isTranscendental(op))
      return false;
  }
  double inputBytes = 0;
  for (Value input : externalInputs({group}))
    inputBytes += tensorBytes(input.getType());
  return inputBytes <= config.maxDuplicateInputBytes;
}

double Planner::benefit(Group *a, Group *b, Relation relation, MergeMode mode,
                        double *bytesSaved) const {
  double saved = 0;
  double launches = 1;
  if (relation == Relation::Sibling) {
    // The shared inputs are read once instead of twice.
    llvm::SetVector<Value> inputsB = externalInputs({b});
    for (Value value : externalInputs({a})) {
      if (!inputsB.contains(value))
        continue;
      double readA = 0, readB = 0;
      for (Operation *user : value.getUsers()) {
        Group *g = groupOf(topLevel(user));
        if (g == a)
          readA = std::max(readA, readBytes(value, user));
        else if (g == b)
          readB = std::max(readB, readBytes(value, user));
      }
      saved += std::min(readA, readB);
    }
  } else {
    // Producer values read by the consumer no longer travel through memory;
    // those with no other users are not written either.
    for (Operation *op : a->ops)
      for (Value result : op->getResults()) {
        double read = 0;
        bool outside = false;
        for (Operation *user : result.getUsers()) {
          Group *g = groupOf(topLevel(user));
          if (g == b)
            read = std::max(read, readBytes(result, user));
          else if (g != a)
            outside = true;
        }
        saved += read;
        if (read > 0 && !outside && mode == MergeMode::Plain)
          saved += tensorBytes(result.getType());
      }
    if (mode == MergeMode::Duplicate) {
      // The copy reads the producer's inputs again, and the original's
      // launch goes away only with its last consumer: share it out.
      for (Value input : externalInputs({a}))
        saved -= tensorBytes(input.getType());
      DenseSet<Group *> consumers;
      for (Operation *op : a->ops)
        for (Operation *user : op->getUsers())
          if (Group *g = groupOf(topLevel(user)); g != a)
            consumers.insert(g);
      launches = 1.0 / std::max<size_t>(consumers.size(), 1);
    }
  }
  if (bytesSaved)
    *bytesSaved = saved;
  return saved + launches * config.launchCostBytes;
}

std::string Planner::combineKinds(Group *a, Group *b, Relation relation,
                                  FusionKind &kind) const {
  using K = FusionKind;
  kind = K::Loop;
  // The first edge from an op of producer `a` into an op of consumer `b`
  // where `reads(op, user)`, as a rejection naming both, or "".
  auto rejectEdge = [&](auto reads, StringRef why) -> std::string {
    if (relation != Relation::ProducerConsumer)
      return "";
    for (Operation *op : a->ops)
      for (Operation *user : op->getUsers())
        if (groupOf(topLevel(user)) == b && reads(op, user))
          return "'" + nameOf(user) + "' " + why.str() + " '" + nameOf(op) +
                 "' (fusing would recompute it)";
    return "";
  };
  // Pooling windows overlap: a fused producer would be recomputed for
  // every window that reads its element.
  if (std::string why = rejectEdge(
          [](Operation *, Operation *user) {
            return getFusionRole(user) == FusionRole::Window;
          },
          "reads overlapping windows of");
      !why.empty())
    return why;
  // A gather whose result is bigger than what it gathers from (an
  // upsampling Resize's axis) reads elements more than once: a fused
  // producer would be recomputed for each read, 8 times per element on an
  // 8x upsampled axis, where materialising it costs one write and one read.
  if (std::string why = rejectEdge(
          [](Operation *op, Operation *user) {
            auto gather = dyn_cast<GatherOp>(user);
            return gather &&
                   llvm::is_contained(op->getResults(),
                                      gather->getOperand(0)) &&
                   tensorBytes(gather->getResult(0).getType()) >
                       tensorBytes(gather->getOperand(0).getType());
          },
          "reads elements of");
      !why.empty())
    return why;
  if (a->kind == K::Loop && b->kind == K::Loop)
    return "";
  if (a->kind == K::Output && b->kind == K::Output)
    return "'" + nameOf(a->hero) + "' and '" + nameOf(b->hero) +
           "' are both matrix roots";
  if (a->kind == K::Input && b->kind == K::Input) {
    if (!(getReductionShape(a->hero) == getReductionShape(b->hero)))
      return "reductions '" + nameOf(a->hero) + "' and '" + nameOf(b->hero) +
             "' differ in input shape or axes";
    kind = K::Input;
    return "";
  }
  if (a->kind != K::Loop && b->kind != K::Loop)
    return "matrix root and reduction root ('" + nameOf(a->hero) + "', '" +
           nameOf(b->hero) + "') need different kernels";

  Group *rooted = a->kind == K::Loop ? b : a;
  Group *loop = a->kind == K::Loop ? a : b;
  kind = rooted->kind;
  if (rooted->kind == K::Input) {
    int64_t limit = tensorElements(rooted->hero->getOperand(0).getType());
    for (Operation *op : loop->ops)
      for (Type type : op->getResultTypes())
        if (tensorElements(type) > limit)
          return "'" + nameOf(op) + "' iterates over more elements than " +
                 "reduction '" + nameOf(rooted->hero) + "'";
    return "";
  }
  // An output group: the loop side must be an elementwise epilogue.
  if (relation == Relation::Sibling)
    return "matrix fusions take no siblings ('" + nameOf(rooted->hero) + "')";
  Operation *hero = rooted->hero;
  if (loop == a)
    for (Operation *op : loop->ops)
      for (Operation *user : op->getUsers())
        if (user == hero)
          return "matrix op '" + nameOf(hero) + "' takes no fused prologue ('" +
                 nameOf(op) + "' feeds it)";
  int64_t elements = tensorElements(hero->getResult(0).getType());
  for (Operation *op : loop->ops) {
    if (!isEpilogueOp(op))
      return "'" + nameOf(op) + "' is not an elementwise epilogue of '" +
             nameOf(hero) + "'";
    if (tensorElements(op->getResult(0).getType()) != elements)
      return "'" + nameOf(op) + "' changes the iteration space of the " +
             "epilogue of '" + nameOf(hero) + "'";
  }
  return "";
}

Operation *Planner::findIndirectPath(Group *from, Group *to) const {
  SmallVector<Operation *> work;
  DenseSet<Operation *> seen;
  DenseSet<Group *> expanded{from};
  // Pushes the users of `op`; returns `op` when one of them is in `to` and
  // `op` is not in `from` (a path through another op).
  auto visitUsers = [&](Operation *op, bool isSource) -> Operation * {
    for (Operation *user : op->getUsers()) {
      Operation *top = topLevel(user);
      if (!top)
        continue;
      Group *g = groupOf(top);
      if (g == from)
        continue;
      if (g == to) {
        if (!isSource)
          return op;
        continue;
      }
      if (seen.insert(top).second)
        work.push_back(top);
    }
    return nullptr;
  };
  for (Operation *op : from->ops)
    visitUsers(op, /*isSource=*/true);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    Group *g = groupOf(op);
    if (!g) {
      if (Operation *via = visitUsers(op, false))
        return via;
      continue;
    }
    if (!expanded.insert(g).second)
      continue;
    for (Operation *member : g->ops)
      if (Operation *via = visitUsers(member, false))
        return via;
  }
  return nullptr;
}

Verdict Planner::judge(Group *a, Group *b, Relation relation) const {
  Verdict v;
  if (a->device != b->device) {
    v.reason = "would cross devices (" + deviceName(a->device) + " and " +
               deviceName(b->device) + ")";
    return v;
  }
  for (Group *g : {a, b})
    if (!g->pinnedBy.empty()) {
      v.reason = "fusion of '" + nameOf(g->ops.front()) +
                 "' disabled by --disable-fusion-of='" + g->pinnedBy + "'";
      return v;
    }
  if (std::string why = combineKinds(a, b, relation, v.kind); !why.empty()) {
    v.reason = why;
    return v;
  }
  if (config.isDisabled(v.kind)) {
    v.reason = "'" + stringifyFusionKind(v.kind).str() +
               "' fusion disabled by --disable-fusion";
    return v;
  }
  bool escapes =
      relation == Relation::ProducerConsumer && hasUsersOutside(a, b);
  if (escapes && isCheapToDuplicate(a))
    v.mode = MergeMode::Duplicate;
  size_t size = a->ops.size() + b->ops.size();
  if (size > config.maxOps) {
    v.reason = "size limit: " + std::to_string(size) +
               " ops > max-ops=" + std::to_string(config.maxOps);
    return v;
  }
  if (v.mode == MergeMode::Plain) {
    Operation *via = findIndirectPath(a, b);
    if (!via && relation == Relation::Sibling)
      via = findIndirectPath(b, a);
    if (via) {
      v.reason = "would create cycle through '" + nameOf(via) + "'";
      return v;
    }
  }
  size_t operands = externalInputs({a, b}).size();
  if (operands > config.maxOperands) {
    v.reason = "operand limit: " + std::to_string(operands) +
               " operands > max-operands=" + std::to_string(config.maxOperands);
    return v;
  }
  unsigned outputs =
      v.mode == MergeMode::Duplicate ? numOutputs({b}) : numOutputs({a, b});
  if (outputs > 1 && config.isDisabled(FusionKind::MultiOutput)) {
    v.reason = escapes ? "producer too expensive to duplicate and "
                         "'multi_output' fusion is disabled"
                       : "would return " + std::to_string(outputs) +
                             " values and 'multi_output' fusion is disabled";
    return v;
  }
  return v;
}

//===----------------------------------------------------------------------===//
// Merging
//===----------------------------------------------------------------------===//

void Planner::merge(Group *a, Group *b, FusionKind kind, double bytesSaved) {
  for (Operation *op : a->ops) {
    groups[op] = b;
    b->ops.push_back(op);
  }
  llvm::append_range(b->duplicated, a->duplicated);
  // The hero: the matrix op, or the earliest reduction.
  Operation *hero = a->kind == kind ? a->hero : nullptr;
  if (b->kind == kind && b->hero && (!hero || b->hero->isBeforeInBlock(hero)))
    hero = b->hero;
  b->hero = hero;
  b->kind = kind;
  b->bytesSaved += a->bytesSaved + bytesSaved;
  a->alive = false;
  a->ops.clear();
  ++a->version;
  ++b->version;
  pushCandidatesOf(b);
}

void Planner::duplicateInto(Group *a, Group *b, FusionKind kind,
                            double bytesSaved) {
  llvm::sort(a->ops,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  OpBuilder builder(a->ops.back()->getContext());
  builder.setInsertionPointAfter(a->ops.back());
  IRMapping mapping;
  Group &copy = storage.emplace_back();
  copy.kind = a->kind;
  copy.device = a->device;
  for (Operation *op : a->ops) {
    Operation *clone = builder.clone(*op, mapping);
    names[clone] = nameOf(op);
    copy.ops.push_back(clone);
    copy.duplicated.push_back(clone);
    groups[clone] = &copy;
  }
  for (Operation *op : a->ops)
    for (Value result : op->getResults())
      for (OpOperand &use : llvm::make_early_inc_range(result.getUses()))
        if (groupOf(topLevel(use.getOwner())) == b)
          use.set(mapping.lookup(result));
  clonedOps = true;
  merge(&copy, b, kind, bytesSaved);
  bool stillUsed = llvm::any_of(a->ops, [&](Operation *op) {
    return llvm::any_of(op->getUsers(), [&](Operation *user) {
      return groupOf(topLevel(user)) != a;
    });
  });
  ++a->version;
  if (stillUsed) {
    pushCandidatesOf(a);
    return;
  }
  // Every consumer has its own copy now.
  a->alive = false;
  for (Operation *op : a->ops) {
    groups.erase(op);
    deadOps.push_back(op);
  }
  a->ops.clear();
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

FusionPlan Planner::run() {
  FusionPlan plan;
  for (Operation &op : block)
    nameOf(&op);
  for (Operation &op : block) {
    if (isa<TransferOp>(&op) || isa<ConstantOp>(&op))
      continue;
    if (getFusionRole(&op) == FusionRole::Barrier)
      continue;
    ++plan.opsBefore;
    newGroup(&op);
  }
  seedCandidates();

  while (!queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    if (!c.a->alive || !c.b->alive || c.a == c.b ||
        c.versionA != c.a->version || c.versionB != c.b->version)
      continue; // superseded: the merged groups pushed fresh candidates
    Verdict verdict = judge(c.a, c.b, c.relation);
    if (!verdict.reason.empty()) {
      reject(c, verdict.reason);
      continue;
    }
    double bytesSaved = 0;
    double gain = benefit(c.a, c.b, c.relation, verdict.mode, &bytesSaved);
    if (gain != c.benefit && verdict.mode == MergeMode::Plain) {
      // Benefits depend on other groups; requeue with the current value.
      c.benefit = gain;
      c.seq = seq++;
      queue.push(c);
      continue;
    }
    if (gain <= 0) {
      reject(c, "not profitable (estimated benefit " +
                    std::to_string(static_cast<int64_t>(gain)) + " bytes)");
      continue;
    }
    if (verdict.mode == MergeMode::Duplicate)
      duplicateInto(c.a, c.b, verdict.kind, bytesSaved);
    else
      merge(c.a, c.b, verdict.kind, bytesSaved);
  }

  // Clones sit after their originals, possibly after their users.
  if (clonedOps)
    sortTopologically(&block);

  llvm::StringSet<> names;
  for (Group &group : storage) {
    if (!group.alive || group.ops.empty())
      continue;
    // A group nobody reads is dead code (tandem compute ops are pure): a
    // fusion must return something, so it goes instead.
    if (numOutputs({&group}) == 0) {
      for (Operation *op : group.ops) {
        groups.erase(op);
        deadOps.push_back(op);
      }
      continue;
    }
    PlannedFusion fusion;
    fusion.ops = group.ops;
    llvm::sort(fusion.ops, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    fusion.baseKind = group.kind;
    fusion.root = group.hero ? group.hero : fusion.ops.back();
    fusion.bytesSaved = group.bytesSaved;
    fusion.duplicated = group.duplicated;
    for (Operation *op : fusion.ops)
      fusion.memberNames.push_back(nameOf(op));
    for (Operation *op : fusion.duplicated)
      fusion.duplicatedNames.push_back(nameOf(op));
    fusion.rootName = nameOf(fusion.root);
    if (group.device)
      fusion.device = group.device.getName();
    std::string base =
        "fusion." +
        llvm::StringRef(sanitizeName(nameOf(fusion.root))).ltrim('_').str();
    std::string name = base;
    for (unsigned i = 1; !names.insert(name).second; ++i)
      name = base + "_" + std::to_string(i);
    fusion.name = name;
    plan.fusions.push_back(std::move(fusion));
  }
  // Fusions in block order of their last op, for stable reports.
  llvm::sort(plan.fusions, [](const PlannedFusion &x, const PlannedFusion &y) {
    return x.ops.back()->isBeforeInBlock(y.ops.back());
  });

  DenseSet<Operation *> dead(deadOps.begin(), deadOps.end());
  for (auto &[key, reason] : rejections) {
    auto [first, second, relation] = key;
    if (dead.contains(first) || dead.contains(second))
      continue;
    Group *g1 = groupOf(first), *g2 = groupOf(second);
    if (g1 && g1 == g2)
      continue; // fused after all, through another candidate
    plan.rejected.push_back({relation == 0 ? "producer-consumer" : "sibling",
                             nameOf(first), nameOf(second), reason});
  }
  plan.deadOps = std::move(deadOps);
  return plan;
}

FusionPlan mlir::tandem::planFusion(Block &block, const FusionConfig &config) {
  return Planner(block, config).run();
}
