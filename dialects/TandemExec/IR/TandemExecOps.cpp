//===- TandemExecOps.cpp - host schedule ops ------------------------------===//
//
// Verifiers of the tandem_exec ops.
//
//===----------------------------------------------------------------------===//

#include "dialects/TandemExec/IR/TandemExecOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringSwitch.h"

#include "runtime/include/tandem/abi.h"

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::exec;

//===----------------------------------------------------------------------===//
// Streams in op syntax: `compute` for GPU 0's, `compute[1]` for GPU 1's.
//===----------------------------------------------------------------------===//

static ParseResult parseStream(OpAsmParser &parser, StreamAttr &stream) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<StreamKind> kind = symbolizeStreamKind(keyword);
  if (!kind)
    return parser.emitError(loc) << "unknown stream '" << keyword
                                 << "' (expected compute, h2d or d2h)";
  unsigned device = 0;
  if (succeeded(parser.parseOptionalLSquare()) &&
      (parser.parseInteger(device) || parser.parseRSquare()))
    return failure();
  stream = StreamAttr::get(parser.getContext(), *kind, device);
  return success();
}

static void printStream(OpAsmPrinter &printer, Operation *, StreamAttr stream) {
  printer << stream.getLabel();
}

#define GET_OP_CLASSES
#include "dialects/TandemExec/IR/TandemExecOps.cpp.inc"

/// Checks that the device buffer `type` (operand `what` of `op`) lives on the
/// GPU of `stream`.
static LogicalResult checkStreamDevice(Operation *op, StreamAttr stream,
                                       Type type, const llvm::Twine &what) {
  std::optional<unsigned> device = deviceIndexOf(type);
  if (!device || *device == stream.getDevice())
    return success();
  return op->emitOpError() << "on stream " << stream.getLabel() << " (GPU "
                           << stream.getDevice() << ") uses " << what
                           << " of GPU " << *device << ": " << type;
}

/// Whether two memrefs hold the same data layout: shape and element type
/// (memory spaces may differ).
static bool sameData(MemRefType a, MemRefType b) {
  return a.getShape() == b.getShape() &&
         a.getElementType() == b.getElementType();
}

/// Checks that `type` has elements the arena can size.
static LogicalResult checkElements(Operation *op, MemRefType type) {
  if (!type.getElementType().isIntOrFloat())
    return op->emitOpError() << "needs int or float elements, got " << type;
  return success();
}

LogicalResult TransferOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto target = cast<MemRefType>(getTarget().getType());
  if (!sameData(source, target))
    return emitOpError() << "copies " << source << " into " << target
                         << ": shapes and element types must match";
  if (getSrc() == getDst())
    return emitOpError() << "copies from " << getSrc().getName()
                         << " to itself";
  if (getSrc().isGPU() == getDst().isGPU())
    return emitOpError() << "copies from " << getSrc().getName() << " to "
                         << getDst().getName()
                         << ": exactly one side must be a GPU";
  return checkElements(*this, source);
}

/// Checks an arena offset: non-negative, and the buffer's end
/// (offset + bytes) within int64.
static LogicalResult checkOffset(Operation *op, IntegerAttr offset,
                                 MemRefType type) {
  if (!offset)
    return success();
  int64_t value = offset.getInt(), end;
  if (value < 0)
    return op->emitOpError() << "has a negative offset " << value;
  if (memRefBytes(type) < 0)
    return success(); // not int or float elements: checked elsewhere
  if (__builtin_add_overflow(value, memRefBytes(type), &end))
    return op->emitOpError()
           << "has offset " << value << ", whose end (plus "
           << memRefBytes(type) << " bytes of " << type << ") overflows int64";
  return success();
}

LogicalResult AllocOp::verify() {
  if (!isDeviceMemRef(getBuffer().getType()))
    return emitOpError()
           << "must produce a memref in a GPU's memory space, got "
           << getBuffer().getType();
  if (failed(checkOffset(*this, getOffsetAttr(),
                         cast<MemRefType>(getBuffer().getType()))))
    return failure();
  return checkElements(*this, getBuffer().getType());
}

LogicalResult WeightOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (!isDeviceMemRef(getBuffer().getType()))
    return emitOpError()
           << "must produce a memref in a GPU's memory space, got "
           << getBuffer().getType();
  auto global =
      symbols.lookupNearestSymbolFrom<memref::GlobalOp>(*this, getGlobalAttr());
  if (!global)
    return emitOpError() << "names '@" << getGlobal()
                         << "', which is not a memref.global";
  if (!global.getConstant() || !global.getInitialValue())
    return emitOpError() << "names '@" << getGlobal()
                         << "', which is not an initialised constant";
  if (!sameData(global.getType(), getBuffer().getType()))
    return emitOpError() << "has type " << getBuffer().getType() << " but '@"
                         << getGlobal() << "' is " << global.getType();
  if (failed(checkOffset(*this, getOffsetAttr(),
                         cast<MemRefType>(getBuffer().getType()))))
    return failure();
  return success();
}

LogicalResult CopyOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto target = cast<MemRefType>(getTarget().getType());
  if (!sameData(source, target))
    return emitOpError() << "copies " << source << " into " << target
                         << ": shapes and element types must match";
  if (getStream().isCompute())
    return emitOpError() << "must run on the h2d or d2h stream, not compute";
  bool h2d = getStream().getKind() == StreamKind::H2D;
  if (isDeviceMemRef(source) == h2d || isDeviceMemRef(target) != h2d)
    return emitOpError() << "on " << getStream().getLabel()
                         << " must copy from "
                         << (h2d ? "host to device" : "device to host")
                         << " memory";
  if (failed(checkStreamDevice(*this, getStream(), h2d ? target : source,
                               "a device buffer")))
    return failure();
  if (failed(checkElements(*this, source)))
    return failure();
  if (static_cast<int64_t>(getBytes()) != memRefBytes(source))
    return emitOpError() << "copies " << getBytes() << " bytes but " << source
                         << " holds " << memRefBytes(source);
  return success();
}

LogicalResult WaitOp::verify() {
  auto record = getEvent().getDefiningOp<RecordOp>();
  if (!record)
    return success();
  if (record.getStream() == getStream())
    return emitOpError() << "makes stream " << getStream().getLabel()
                         << " wait for an event it recorded itself";
  if (record.getStream().getDevice() != getStream().getDevice())
    return emitOpError() << "makes stream " << getStream().getLabel()
                         << " of GPU " << getStream().getDevice()
                         << " wait for an event recorded on "
                         << record.getStream().getLabel() << " of GPU "
                         << record.getStream().getDevice()
                         << ": a stream waits only for its own GPU's events";
  return success();
}

LogicalResult LaunchOp::verify() {
  for (auto [what, dims] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"grid", getGrid()},
        {"block", getBlock()}}) {
    if (dims.size() != 3)
      return emitOpError() << "needs 3 " << what << " dimensions, got "
                           << dims.size();
    if (llvm::any_of(dims, [](int64_t d) { return d <= 0 || d > UINT32_MAX; }))
      return emitOpError() << "has a " << what
                           << " dimension out of range (1..2^32-1)";
  }
  if (!getStream().isCompute())
    return emitOpError() << "must run on the compute stream";
  for (auto [i, arg] : llvm::enumerate(getArgs())) {
    if (!isDeviceMemRef(arg.getType()))
      return emitOpError() << "argument " << i
                           << " is not a device buffer: " << arg.getType();
    if (failed(checkStreamDevice(*this, getStream(), arg.getType(),
                                 "argument " + llvm::Twine(i))))
      return failure();
  }
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError() << "launches '@" << getKernel()
                         << "', which is not a function";
  if (!kernel->hasAttr(TandemDialect::getKernelAttrName()))
    return emitOpError() << "launches '@" << getKernel()
                         << "', which has no 'tandem.kernel' attribute";
  FunctionType type = kernel.getFunctionType();
  if (type.getNumInputs() != getArgs().size() || type.getNumResults() != 0)
    return emitOpError() << "passes " << getArgs().size() << " arguments but '@"
                         << getKernel() << "' has type " << type;
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(type.getInputs(), getArgs()))) {
    auto [param, arg] = pair;
    auto paramType = dyn_cast<MemRefType>(param);
    if (!paramType || !sameData(paramType, cast<MemRefType>(arg.getType())))
      return emitOpError() << "argument " << i << " has type " << arg.getType()
                           << " but '@" << getKernel() << "' takes " << param;
  }
  return success();
}

/// Checks a partition marker's stream: a GPU partition's launches run on the
/// compute stream.
static LogicalResult checkMarkerStream(Operation *op, StreamAttr stream) {
  if (stream && !stream.isCompute())
    return op->emitOpError()
           << "brackets a GPU partition on stream " << stream.getLabel()
           << "; launches run on compute";
  return success();
}

LogicalResult PartitionBeginOp::verify() {
  if (failed(checkMarkerStream(*this, getStreamAttr())))
    return failure();
  for (Operation *op = getOperation()->getNextNode(); op;
       op = op->getNextNode()) {
    if (isa<PartitionBeginOp>(op))
      break;
    if (auto end = dyn_cast<PartitionEndOp>(op)) {
      if (end.getName() != getName() || end.getStream() != getStream())
        return emitOpError()
               << "opens '" << getName() << "' but the next end closes '"
               << end.getName() << "'";
      return success();
    }
  }
  return emitOpError() << "opens '" << getName()
                       << "' but no partition_end closes it before the next "
                          "partition or the end of the block";
}

LogicalResult PartitionEndOp::verify() {
  if (failed(checkMarkerStream(*this, getStreamAttr())))
    return failure();
  for (Operation *op = getOperation()->getPrevNode(); op;
       op = op->getPrevNode()) {
    if (isa<PartitionEndOp>(op))
      break;
    if (isa<PartitionBeginOp>(op))
      return success(); // the begin checks names and streams
  }
  return emitOpError() << "closes '" << getName()
                       << "', which no partition_begin opened";
}

/// Checks that the `fallback` ops after `op` (a library call) are
/// launches.
static LogicalResult verifyFallback(Operation *op, int64_t fallback) {
  if (fallback < 1)
    return op->emitOpError()
           << "needs at least 1 fallback launch, got " << fallback;
  Operation *next = op->getNextNode();
  for (int64_t i = 0; i < fallback; ++i, next = next->getNextNode()) {
    if (!next || !isa<LaunchOp>(next))
      return op->emitOpError()
             << "is followed by "
             << (next ? "'" + next->getName().getStringRef().str() + "'"
                      : std::string("the end of the block"))
             << " where fallback launch " << i + 1 << " of " << fallback
             << " should be";
  }
  return success();
}

/// The launches among the `fallback` ops after `op`, in order.
static SmallVector<Operation *> fallbackLaunches(Operation *op,
                                                 int64_t fallback) {
  SmallVector<Operation *> launches;
  Operation *next = op->getNextNode();
  for (int64_t i = 0; i < fallback && next; ++i, next = next->getNextNode())
    if (isa<LaunchOp>(next))
      launches.push_back(next);
  return launches;
}

int64_t GemmOp::getEpilogueCode() {
  return llvm::StringSwitch<int64_t>(getEpilogue())
      .Case("none", 0)
      .Case("relu", 1)
      .Case("bias", 2)
      .Case("bias_relu", 3)
      .Case("gelu", 4)
      .Case("bias_gelu", 5)
      .Default(-1);
}

FailureOr<StringAttr>
mlir::tandem::exec::libraryPrecisionAttr(Operation *anchor,
                                         StringRef precision) {
  if (!llvm::is_contained({"fp32", "tf32", "bf16", "fp16"}, precision))
    return anchor->emitError() << "unknown precision '" << precision
                               << "' (expected fp32, tf32, bf16 or fp16)";
  if (precision == "fp32")
    return StringAttr();
  return StringAttr::get(anchor->getContext(), precision);
}

int64_t GemmOp::getPrecisionFlag() {
  return llvm::StringSwitch<int64_t>(getPrecision())
      .Case("fp32", 0)
      .Case("tf32", TANDEM_GEMM_ALLOW_TF32)
      .Case("bf16", TANDEM_GEMM_ALLOW_BF16)
      .Case("fp16", TANDEM_GEMM_ALLOW_FP16)
      .Default(-1);
}

Type GemmOp::get16BitOperandType() {
  if (getPrecision() == "bf16")
    return BFloat16Type::get(getContext());
  if (getPrecision() == "fp16")
    return Float16Type::get(getContext());
  return Type();
}

bool GemmOp::has16BitOperands() {
  return !cast<MemRefType>(getA().getType()).getElementType().isF32();
}

/// Checks that `value`, a GEMM operand of `rows` x `cols` per problem
/// (stored row-major with leading dimension `ld`, `batch` problems
/// `stride` elements apart), is an f32 device buffer holding all of it.
static LogicalResult checkGemmOperand(GemmOp op, StringRef what, Value value,
                                      int64_t rows, int64_t cols, int64_t ld,
                                      int64_t stride, Type element) {
  auto type = cast<MemRefType>(value.getType());
  if (!isDeviceMemRef(type))
    return op.emitOpError()
           << "operand " << what << " is not a device buffer: " << type;
  if (type.getElementType() != element)
    return op.emitOpError() << "operand " << what << " must hold " << element
                            << ", got " << type;
  if (ld < cols)
    return op.emitOpError() << "operand " << what << " has leading dimension "
                            << ld << " below its row of " << cols;
  if (stride < 0)
    return op.emitOpError()
           << "operand " << what << " has a negative batch stride " << stride;
  int64_t batch = static_cast<int64_t>(op.getBatch());
  // The attributes are the user's: an extent that overflows int64 must not
  // wrap into a small one.
  int64_t batchSpan, rowSpan, needed;
  if (__builtin_mul_overflow(batch - 1, stride, &batchSpan) ||
      __builtin_mul_overflow(rows - 1, ld, &rowSpan) ||
      __builtin_add_overflow(batchSpan, rowSpan, &needed) ||
      __builtin_add_overflow(needed, cols, &needed))
    return op.emitOpError()
           << "operand " << what << " spans more than int64 elements (batch "
           << batch << ", stride " << stride << ", " << rows
           << " rows, leading dimension " << ld << ")";
  if (needed > type.getNumElements())
    return op.emitOpError()
           << "operand " << what << " needs " << needed << " elements but "
           << type << " holds " << type.getNumElements();
  return success();
}

LogicalResult GemmOp::verify() {
  // The attributes are read as signed values (I64Attr getters are unsigned).
  auto v = [](uint64_t value) { return static_cast<int64_t>(value); };
  int64_t batch = v(getBatch()), m = v(getM()), n = v(getN()), k = v(getK());
  if (batch < 1 || m < 1 || n < 1 || k < 1)
    return emitOpError() << "needs batch, m, n and k of at least 1, got "
                         << batch << ", " << m << ", " << n << ", " << k;
  if (!getStream().isCompute())
    return emitOpError() << "must run on the compute stream";
  for (auto [what, value] : {std::pair<StringRef, Value>{"a", getA()},
                             {"b", getB()},
                             {"c", getC()},
                             {"bias", getBias()}})
    if (value && failed(checkStreamDevice(*this, getStream(), value.getType(),
                                          "operand " + what)))
      return failure();
  int64_t epilogue = getEpilogueCode();
  if (epilogue < 0)
    return emitOpError() << "has an unknown epilogue '" << getEpilogue()
                         << "' (none, relu, bias, bias_relu, gelu, bias_gelu)";
  if (getPrecisionFlag() < 0)
    return emitOpError() << "has an unknown precision '" << getPrecision()
                         << "' (fp32, tf32, bf16, fp16)";
  bool wantsBias = epilogue == 2 || epilogue == 3 || epilogue == 5;
  if (wantsBias != static_cast<bool>(getBias()))
    return emitOpError() << "has epilogue '" << getEpilogue() << "' "
                         << (wantsBias ? "but no bias" : "and a bias");
  // A and B hold f32, or both the 16-bit format of a bf16 or fp16
  // precision (stored by tandem-form-library-gemms).
  Type f32 = Float32Type::get(getContext());
  Type operands = cast<MemRefType>(getA().getType()).getElementType();
  if (operands != f32) {
    Type stored = get16BitOperandType();
    if (operands != stored)
      return emitOpError()
             << "operand a holds " << operands << ", which precision '"
             << getPrecision()
             << "' does not store (f32, or bf16 with precision bf16 and f16 "
                "with fp16)";
  }
  int64_t ldc = v(getLdc()), strideC = v(getStrideC());
  if (failed(checkGemmOperand(*this, "a", getA(), getTransA() ? k : m,
                              getTransA() ? m : k, v(getLda()), v(getStrideA()),
                              operands)) ||
      failed(checkGemmOperand(*this, "b", getB(), getTransB() ? n : k,
                              getTransB() ? k : n, v(getLdb()), v(getStrideB()),
                              operands)) ||
      failed(checkGemmOperand(*this, "c", getC(), m, n, ldc, strideC, f32)))
    return failure();
  if (batch > 1 && strideC < (m - 1) * ldc + n)
    return emitOpError() << "writes overlapping problems: batch stride of c "
                         << strideC << " is below " << (m - 1) * ldc + n;
  if (getBias() &&
      failed(checkGemmOperand(*this, "bias", getBias(), 1, n, n, 0, f32)))
    return failure();
  return verifyFallback(*this, v(getFallback()));
}

SmallVector<Operation *> GemmOp::getFallbackLaunches() {
  return fallbackLaunches(*this, static_cast<int64_t>(getFallback()));
}

LogicalResult GemmOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getKernelAttr());
  if (!kernel || !kernel->hasAttr(TandemDialect::getKernelAttrName()))
    return emitOpError() << "names '@" << getKernel()
                         << "', which is not a tandem.kernel function";
  return success();
}

int64_t ConvOp::getActivationCode() {
  return llvm::StringSwitch<int64_t>(getActivation())
      .Case("none", 0)
      .Case("relu", 1)
      .Case("relu6", 2)
      .Case("sigmoid", 3)
      .Case("swish", 4)
      .Default(-1);
}

int64_t ConvOp::getPrecisionFlag() {
  // cuDNN's f32 convolutions down-convert to TF32 or FP16 only; TF32 is at
  // least as accurate as BF16.
  return llvm::StringSwitch<int64_t>(getPrecision())
      .Case("fp32", 0)
      .Cases({"tf32", "bf16"}, TANDEM_CONV_ALLOW_TF32)
      .Case("fp16", TANDEM_CONV_ALLOW_FP16)
      .Default(-1);
}

LogicalResult ConvOp::verify() {
  if (!getStream().isCompute())
    return emitOpError() << "must run on the compute stream";
  for (auto [what, value] : {std::pair<StringRef, Value>{"x", getX()},
                             {"w", getW()},
                             {"y", getY()},
                             {"bias", getBias()},
                             {"z", getZ()}}) {
    if (!value)
      continue;
    auto type = cast<MemRefType>(value.getType());
    if (!isDeviceMemRef(type))
      return emitOpError() << "operand " << what
                           << " is not a device buffer: " << type;
    if (!type.getElementType().isF32())
      return emitOpError() << "operand " << what << " must hold f32, got "
                           << type;
    if (type.getRank() != (what == "bias" ? 1 : 4))
      return emitOpError() << "operand " << what << " must have rank "
                           << (what == "bias" ? 1 : 4) << ", got " << type;
    if (failed(checkStreamDevice(*this, getStream(), type, "operand " + what)))
      return failure();
  }
  for (auto [what, array] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"strides", getStrides()},
        {"pads", getPads()},
        {"dilations", getDilations()}}) {
    if (array.size() != 2)
      return emitOpError() << "needs 2 " << what << " (height, width), got "
                           << array.size();
    for (int64_t value : array)
      if (value < (what == "pads" ? 0 : 1))
        return emitOpError()
               << "has " << what << " [" << array[0] << ", " << array[1]
               << "]: each must be at least " << (what == "pads" ? 0 : 1);
  }
  if (getLayout() != "NCHW" && getLayout() != "NHWC")
    return emitOpError() << "has layout \"" << getLayout()
                         << "\", which must be \"NCHW\" or \"NHWC\"";
  SmallVector<int64_t, 4> xs = getNCHWShape(getX()), ws = getNCHWShape(getW()),
                          ys = getNCHWShape(getY());
  int64_t groups = static_cast<int64_t>(getGroups());
  if (groups < 1 || xs[1] % groups || ws[0] % groups)
    return emitOpError() << "has groups " << groups << ", which must divide "
                         << xs[1] << " input and " << ws[0]
                         << " output channels";
  if (ws[1] * groups != xs[1])
    return emitOpError() << "has a filter of " << ws[1]
                         << " input channels, but " << xs[1] << " / " << groups
                         << " groups is " << xs[1] / groups;
  ArrayRef<int64_t> strides = getStrides(), pads = getPads(),
                    dilations = getDilations();
  int64_t p =
      (xs[2] + 2 * pads[0] - dilations[0] * (ws[2] - 1) - 1) / strides[0] + 1;
  int64_t q =
      (xs[3] + 2 * pads[1] - dilations[1] * (ws[3] - 1) - 1) / strides[1] + 1;
  if (ys[0] != xs[0] || ys[1] != ws[0] || ys[2] != p || ys[3] != q ||
      xs[2] + 2 * pads[0] < dilations[0] * (ws[2] - 1) + 1 ||
      xs[3] + 2 * pads[1] < dilations[1] * (ws[3] - 1) + 1)
    return emitOpError() << "has output " << getY().getType()
                         << ", but the input, filter, strides, pads and "
                            "dilations give "
                         << xs[0] << "x" << ws[0] << "x" << p << "x" << q
                         << (isChannelsLast() ? " in NCHW order" : "");
  if (getBias() && getBias().getType().getNumElements() != ws[0])
    return emitOpError() << "has a bias of "
                         << getBias().getType().getNumElements()
                         << " elements for " << ws[0] << " output channels";
  if (getZ() && getZ().getType().getShape() != getY().getType().getShape())
    return emitOpError() << "has a residual " << getZ().getType()
                         << " not shaped like the output " << getY().getType();
  for (Value input : {getX(), getW(), getBias(), getZ()})
    if (input && input == getY())
      return emitOpError() << "writes its output over one of its inputs";
  if (getActivationCode() < 0)
    return emitOpError() << "has an unknown activation '" << getActivation()
                         << "' (none, relu, relu6, sigmoid, swish)";
  if (getPrecisionFlag() < 0)
    return emitOpError() << "has an unknown precision '" << getPrecision()
                         << "' (fp32, tf32, bf16, fp16)";
  return verifyFallback(*this, static_cast<int64_t>(getFallback()));
}

SmallVector<Operation *> ConvOp::getFallbackLaunches() {
  return fallbackLaunches(*this, static_cast<int64_t>(getFallback()));
}

SmallVector<int64_t, 4> ConvOp::getNCHWShape(Value value) {
  ArrayRef<int64_t> shape = cast<MemRefType>(value.getType()).getShape();
  if (!isChannelsLast())
    return SmallVector<int64_t, 4>(shape);
  return {shape[0], shape[3], shape[1], shape[2]};
}

LogicalResult ConvOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel =
      symbols.lookupNearestSymbolFrom<func::FuncOp>(*this, getKernelAttr());
  if (!kernel || !kernel->hasAttr(TandemDialect::getKernelAttrName()))
    return emitOpError() << "names '@" << getKernel()
                         << "', which is not a tandem.kernel function";
  return success();
}
