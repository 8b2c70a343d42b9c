//===- KernelReport.cpp - the tandem-kernel-report pass -------------------===//
//
// The static cost of a host schedule's GPU work: per kernel launch, library
// GEMM and copy, its FLOPs, the global bytes it moves and its roofline time
// on the GPU's cost-model preset (tandemc --kernel-report).
//
//===----------------------------------------------------------------------===//

#include "codegen/HostSchedule/Passes.h"

#include "dialects/TandemExec/IR/TandemExecOps.h"
#include "passes/Analysis/ReportFile.h"
#include "passes/Placement/DeviceModel.h"
#include "runtime/include/tandem/abi.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

namespace mlir::tandem {
#define GEN_PASS_DEF_TANDEMKERNELREPORT
#include "codegen/HostSchedule/Passes.h.inc"
} // namespace mlir::tandem

using namespace mlir;
using namespace mlir::tandem;
using namespace mlir::tandem::exec;

namespace {

/// One row of the report.
struct Row {
  std::string name;
  /// "kernel", "gemm", "fallback" (a GEMM's generated kernels, run only
  /// without cuBLASLt), "copy h2d", "copy d2h".
  std::string kind;
  unsigned gpu = 0;
  double flops = 0, bytes = 0, us = 0;
  /// "compute", "memory", "overhead" (launch and low occupancy dominate)
  /// or "link".
  std::string bound;
  /// A library call's precision other than fp32 ("tf32", ...), or empty.
  std::string precision;
  bool counted = true;
  /// A generated kernel's grid size (blocks); 0 for library calls and
  /// copies.
  int64_t blocks = 0;
};

/// The arithmetic of one linalg op: its iteration space times the
/// arithmetic ops of its body (a multiply-add counts 2).
double linalgFlops(linalg::LinalgOp op) {
  double points = 1;
  for (int64_t range : op.getStaticLoopRanges())
    points *= ShapedType::isDynamic(range) ? 1 : range;
  double perPoint = 0;
  for (Operation &inner : op->getRegion(0).front())
    if (isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            inner.getDialect()) &&
        !isa<arith::ConstantOp, arith::IndexCastOp>(inner))
      perPoint += 1;
  return points * perPoint;
}

/// The kernel function's FLOPs, and whether it holds a contraction or
/// convolution (matrix work for the cost model).
std::pair<double, bool> kernelFlops(func::FuncOp kernel) {
  double flops = 0;
  bool matrix = false;
  kernel.walk([&](linalg::LinalgOp op) {
    flops += linalgFlops(op);
    matrix |= linalg::isaContractionOpInterface(op) ||
              linalg::isaConvolutionOpInterface(op);
  });
  return {flops, matrix};
}

double bytesOf(ValueRange values) {
  double bytes = 0;
  for (Value v : values)
    if (auto type = dyn_cast<MemRefType>(v.getType()))
      bytes += std::max<int64_t>(0, memRefBytes(type));
  return bytes;
}

double elementsOf(Value v) {
  auto type = dyn_cast<MemRefType>(v.getType());
  return type && type.hasStaticShape() ? type.getNumElements() : 1;
}

/// The arithmetic of a library GEMM: the tensor-core rate of the format
/// its descriptor lets cuBLASLt round to.
Precision arithmeticOf(GemmOp gemm) {
  switch (gemm.getPrecisionFlag()) {
  case TANDEM_GEMM_ALLOW_TF32:
    return Precision::TF32;
  case TANDEM_GEMM_ALLOW_BF16:
    return Precision::BF16;
  case TANDEM_GEMM_ALLOW_FP16:
    return Precision::F16;
  default:
    return Precision::F32;
  }
}

/// The same for a library convolution (its descriptor flag: a bf16
/// convolution runs as TF32, ConvOp::getPrecisionFlag).
Precision arithmeticOf(ConvOp conv) {
  switch (conv.getPrecisionFlag()) {
  case TANDEM_CONV_ALLOW_TF32:
    return Precision::TF32;
  case TANDEM_CONV_ALLOW_FP16:
    return Precision::F16;
  default:
    return Precision::F32;
  }
}

/// What limits a roofline estimate.
std::string boundOf(const DeviceModel &gpu, double flops, double bytes,
                    bool matrix, double us,
                    Precision precision = Precision::F32) {
  double peak = (matrix ? gpu.matrixGflops : gpu.vectorGflops).get(precision);
  double computeUs = peak > 0 ? flops / (peak * 1e3) : 0;
  double memoryUs = gpu.memoryGBs > 0 ? bytes / (gpu.memoryGBs * 1e3) : 0;
  if (us - std::max(computeUs, memoryUs) >= std::max(computeUs, memoryUs))
    return "overhead";
  return computeUs >= memoryUs ? "compute" : "memory";
}

struct KernelReportPass
    : tandem::impl::TandemKernelReportBase<KernelReportPass> {
  using Base::Base;

  /// The rows of one scheduled function, in schedule order.
  FailureOr<std::vector<Row>> collect(func::FuncOp func,
                                      const TargetConfig &config) {
    std::vector<Row> rows;
    llvm::DenseSet<Operation *> fallbacks;
    for (Operation &op : func.getBody().front()) {
      auto gpuModel = [&](StreamAttr stream) -> const DeviceModel * {
        const DeviceModel *gpu =
            config.find(DeviceName{DeviceName::Kind::GPU, stream.getDevice()});
        if (!gpu)
          op.emitOpError() << "runs on /device:GPU:" << stream.getDevice()
                           << ", which --target '" << targets
                           << "' does not have";
        return gpu;
      };
      if (auto launch = dyn_cast<LaunchOp>(op)) {
        const DeviceModel *gpu = gpuModel(launch.getStream());
        auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            launch, launch.getKernelAttr());
        if (!gpu || !kernel)
          return failure();
        auto [flops, matrix] = kernelFlops(kernel);
        Row row{launch.getKernel().str(), "kernel",
                launch.getStream().getDevice()};
        row.flops = flops;
        row.bytes = bytesOf(launch.getArgs());
        double outputs =
            launch.getArgs().empty() ? 1 : elementsOf(launch.getArgs().back());
        // The grid bounds the SMs the kernel occupies (a reduction with one
        // block per output point over a single point runs on one SM).
        ArrayRef<int64_t> grid = launch.getGrid();
        row.blocks = grid[0] * grid[1] * grid[2];
        row.us = gpu->estimateUs(row.flops, row.bytes, outputs, Precision::F32,
                                 matrix, /*launches=*/true,
                                 static_cast<double>(row.blocks));
        row.bound = boundOf(*gpu, row.flops, row.bytes, matrix, row.us);
        if (fallbacks.contains(launch)) {
          row.kind = "fallback";
          row.counted = false;
        }
        rows.push_back(std::move(row));
      } else if (auto gemm = dyn_cast<GemmOp>(op)) {
        const DeviceModel *gpu = gpuModel(gemm.getStream());
        if (!gpu)
          return failure();
        for (Operation *fallback : gemm.getFallbackLaunches())
          fallbacks.insert(fallback);
        auto v = [](uint64_t x) { return static_cast<double>(x); };
        Row row{gemm.getKernel().str(), "gemm", gemm.getStream().getDevice()};
        row.flops = 2 * v(gemm.getBatch()) * v(gemm.getM()) * v(gemm.getN()) *
                    v(gemm.getK());
        llvm::SmallVector<Value> operands = {gemm.getA(), gemm.getB(),
                                             gemm.getC()};
        if (gemm.getBias())
          operands.push_back(gemm.getBias());
        row.bytes = bytesOf(operands);
        if (gemm.getPrecision() != "fp32")
          row.precision = gemm.getPrecision().str();
        Precision arithmetic = arithmeticOf(gemm);
        row.us = gpu->estimateUs(row.flops, row.bytes, elementsOf(gemm.getC()),
                                 arithmetic, /*matrix=*/true);
        row.bound =
            boundOf(*gpu, row.flops, row.bytes, true, row.us, arithmetic);
        rows.push_back(std::move(row));
      } else if (auto conv = dyn_cast<ConvOp>(op)) {
        const DeviceModel *gpu = gpuModel(conv.getStream());
        if (!gpu)
          return failure();
        for (Operation *fallback : conv.getFallbackLaunches())
          fallbacks.insert(fallback);
        // 2 MACs' FLOPs per output element and filter tap of its group.
        auto filter = conv.getW().getType();
        Row row{conv.getKernel().str(), "conv", conv.getStream().getDevice()};
        row.flops =
            2 * elementsOf(conv.getY()) *
            static_cast<double>(filter.getNumElements() / filter.getDimSize(0));
        llvm::SmallVector<Value> operands = {conv.getX(), conv.getW(),
                                             conv.getY()};
        for (Value optional : {conv.getBias(), conv.getZ()})
          if (optional)
            operands.push_back(optional);
        row.bytes = bytesOf(operands);
        if (conv.getPrecision() != "fp32")
          row.precision = conv.getPrecision().str();
        Precision arithmetic = arithmeticOf(conv);
        row.us = gpu->estimateUs(row.flops, row.bytes, elementsOf(conv.getY()),
                                 arithmetic, /*matrix=*/true);
        row.bound =
            boundOf(*gpu, row.flops, row.bytes, true, row.us, arithmetic);
        rows.push_back(std::move(row));
      } else if (auto copy = dyn_cast<CopyOp>(op)) {
        StreamAttr stream = copy.getStream();
        if (!gpuModel(stream))
          return failure();
        bool h2d = stream.getKind() == StreamKind::H2D;
        Row row{"", h2d ? "copy h2d" : "copy d2h", stream.getDevice()};
        row.name =
            h2d ? "to /device:GPU:" + std::to_string(stream.getDevice())
                : "from /device:GPU:" + std::to_string(stream.getDevice());
        row.bytes = static_cast<double>(copy.getBytes());
        DeviceName host{DeviceName::Kind::CPU, 0};
        DeviceName gpuName{DeviceName::Kind::GPU, stream.getDevice()};
        row.us = h2d ? config.transferUs(host, gpuName, row.bytes)
                     : config.transferUs(gpuName, host, row.bytes);
        row.bound = "link";
        rows.push_back(std::move(row));
      }
    }
    return rows;
  }

  static void writeTable(llvm::raw_ostream &os, StringRef model,
                         const TargetConfig &config, llvm::ArrayRef<Row> rows) {
    os << "kernel report of model '" << model
       << "': static estimates on the target presets (nothing ran on a GPU)\n";
    os << "| # | work | kind | device | MFLOP | MB | FLOP/B | roofline (us) | "
          "bound |\n|---|---|---|---|---|---|---|---|---|\n";
    for (auto [i, row] : llvm::enumerate(rows))
      os << llvm::format("| %zu | %s | %s | GPU:%u | %.4g | %.4g | %.3g | "
                         "%.2f | %s |\n",
                         i, row.name.c_str(),
                         (row.kind +
                          (row.precision.empty() ? "" : " " + row.precision) +
                          (row.counted ? "" : " (not counted)"))
                             .c_str(),
                         row.gpu, row.flops / 1e6, row.bytes / 1e6,
                         row.bytes > 0 ? row.flops / row.bytes : 0.0, row.us,
                         row.bound.c_str());
    for (const DeviceModel &gpu : config.devices) {
      if (!gpu.isGpu())
        continue;
      double flops = 0, bytes = 0, us = 0, copyUs = 0;
      int launches = 0, copies = 0;
      for (const Row &row : rows) {
        if (row.gpu != gpu.name.index || !row.counted)
          continue;
        if (row.bound == "link") {
          ++copies;
          copyUs += row.us;
        } else {
          ++launches;
          flops += row.flops;
          bytes += row.bytes;
          us += row.us;
        }
      }
      if (!launches && !copies)
        continue;
      os << llvm::format("%s (%s): %d launch%s and library call%s, %.4g "
                         "GFLOP, %.4g MB, %.2f us; %d cop%s, %.2f us\n",
                         gpu.displayName().c_str(), gpu.preset.c_str(),
                         launches, launches == 1 ? "" : "es",
                         launches == 1 ? "" : "s", flops / 1e9, bytes / 1e6, us,
                         copies, copies == 1 ? "y" : "ies", copyUs);
    }
  }

  static llvm::json::Value toJson(StringRef model, llvm::ArrayRef<Row> rows) {
    llvm::json::Array list;
    for (const Row &row : rows) {
      llvm::json::Object object{
          {"name", row.name},
          {"kind", row.kind},
          {"device", "/device:GPU:" + std::to_string(row.gpu)},
          {"flops", row.flops},
          {"bytes", row.bytes},
          {"roofline_us", row.us},
          {"bound", row.bound},
          {"precision", row.precision.empty() ? "fp32" : row.precision},
          {"counted", row.counted}};
      if (row.blocks)
        object["blocks"] = row.blocks;
      list.push_back(std::move(object));
    }
    return llvm::json::Object{{"model", model}, {"work", std::move(list)}};
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    std::optional<TargetConfig> config =
        loadTargets(targets, "generic", deviceConfig, error);
    if (!config) {
      module.emitError() << "tandem-kernel-report: " << error;
      return signalPassFailure();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::json::Array models;
    bool json = StringRef(report).ends_with(".json");
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() ||
          func.getBody().front().getOps<LaunchOp>().empty())
        continue;
      FailureOr<std::vector<Row>> rows = collect(func, *config);
      if (failed(rows))
        return signalPassFailure();
      if (json)
        models.push_back(toJson(func.getSymName(), *rows));
      else
        writeTable(os, func.getSymName(), *config, *rows);
    }
    if (json)
      os << llvm::formatv("{0:2}", llvm::json::Value(std::move(models)))
         << "\n";
    if (failed(writeReportFile(report, "the kernel report", module.getLoc(),
                               [&](llvm::raw_ostream &out) { out << text; })))
      return signalPassFailure();
  }
};

} // namespace
