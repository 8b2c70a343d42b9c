//===- tandem-run.cpp - Runs a compiled Tandem model on .npy tensors ------===//
//
//   tandem-run model.so|model.onnx|model.mlir [--model NAME]
//              (--input x.npy ... | --random --seed S)
//              [--output out.npy ... | --output-dir DIR]
//              [--compare ref.npy ... --rtol R --atol A]
//              [--bench N --warmup W] [--threads T]
//              [--device SPEC] [--trace FILE]
//              [--tandemc PATH] [--cpu CPU] [--compile-arg ARG ...]
//
// Loads the model's shared library with dlopen (compiling a .onnx or .mlir
// model to one first with the tandemc executable), finds its descriptor
// (<NAME>_descriptor, or the tandem_default_model pointer), creates an
// instance through the runtime's C API, runs it, and writes, compares or
// times the outputs. Only the runtime, the .npy reader and CLI11; no MLIR.
//
//===----------------------------------------------------------------------===//

#include "Compile.h"
#include "Npy.h"

#include "tandem/runtime.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace tandem;

namespace {

/// Upper bounds of --threads and of --bench / --warmup.
constexpr int kMaxThreads = 4096;
constexpr int kMaxRuns = 100000000;

/// Command-line options.
struct RunOptions {
  std::string modelPath;
  std::string modelName;
  std::vector<std::string> inputs;
  bool random = false;
  uint64_t seed = 0;
  std::vector<std::string> outputs;
  std::string outputDir;
  std::vector<std::string> compare;
  double rtol = 1e-5;
  double atol = 1e-6;
  int bench = 0;
  int warmup = 3;
  int threads = 0;
  // GPU partitions: where they run, and a Chrome trace.
  std::string device;
  bool deviceGiven = false; // --device "" is an error, not "unset"
  std::string trace;
  // Compiling .onnx / .mlir models.
  std::string tandemc;
  std::string cpu;
  std::vector<std::string> compileArgs;
};

/// Prints "PREFIX: error: MESSAGE" and returns the failure exit code.
int fail(const std::string &prefix, const std::string &message) {
  std::cerr << prefix << ": error: " << message << "\n";
  return 1;
}

/// Prints an error of readNpy / checkInput, which starts with "FILE: ", as
/// "FILE: error: ..."; returns the failure exit code.
int failFile(const std::string &file, const std::string &error) {
  std::string prefix = file + ": ";
  if (error.compare(0, prefix.size(), prefix) == 0)
    return fail(file, error.substr(prefix.size()));
  return fail(file, error);
}

std::string formatType(tandem_dtype_t dtype,
                       const std::vector<int64_t> &shape) {
  std::string text = std::string(tandem_dtype_name(dtype)) + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

std::vector<int64_t> shapeOf(const tandem_tensor_desc_t &desc) {
  return std::vector<int64_t>(desc.shape, desc.shape + desc.rank);
}

//===--- Loading models -----------------------------------------------===//

/// A model loaded from a shared library; closes it when destroyed.
struct LoadedModel {
  void *handle = nullptr;
  const tandem_model_desc_t *desc = nullptr;
  LoadedModel() = default;
  LoadedModel(const LoadedModel &) = delete;
  LoadedModel &operator=(const LoadedModel &) = delete;
  ~LoadedModel() {
    if (handle)
      dlclose(handle);
  }
};

/// dlopens `path` and finds the descriptor: `<name>_descriptor` if `name` is
/// given, else the `tandem_default_model` pointer.
bool loadSharedLibrary(const std::string &path, const std::string &name,
                       LoadedModel &model, std::string &error) {
  // dlopen searches the library path for names without a slash.
  std::string openPath =
      path.find('/') == std::string::npos ? "./" + path : path;
  model.handle = dlopen(openPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!model.handle) {
    const char *reason = dlerror();
    error = "cannot load the model as a shared library: " +
            std::string(reason ? reason : "unknown dlopen error");
    return false;
  }
  dlerror();
  if (!name.empty()) {
    std::string symbol = name + "_descriptor";
    model.desc = static_cast<const tandem_model_desc_t *>(
        dlsym(model.handle, symbol.c_str()));
    if (!model.desc) {
      error = "no model descriptor '" + symbol +
              "' in the library (is the "
              "model named '" +
              name + "'?)";
      return false;
    }
    return true;
  }
  auto *defaultModel = static_cast<const tandem_model_desc_t *const *>(
      dlsym(model.handle, "tandem_default_model"));
  if (!defaultModel || !*defaultModel) {
    error = "no 'tandem_default_model' symbol in the library; name the model "
            "with --model NAME to use its NAME_descriptor";
    return false;
  }
  model.desc = *defaultModel;
  return true;
}

/// Compiles a .onnx / .mlir model with tandemc into a temporary directory
/// and loads the result; the directory is gone when this returns (the
/// loaded library stays mapped).
bool compileAndLoad(const RunOptions &options, LoadedModel &model,
                    std::string &error) {
  std::string tandemc;
  if (!findTandemc(options.tandemc, tandemc, error))
    return false;
  // Declared before the directory: a SIGINT / SIGTERM while it exists stops
  // tandemc and is deferred until the directory is removed.
  InterruptGuard interrupts;
  TempDir dir;
  if (!dir.create(error))
    return false;
  std::vector<std::string> args;
  if (!options.modelName.empty())
    args.push_back("--name=" + options.modelName);
  if (!options.cpu.empty())
    args.push_back("--cpu=" + options.cpu);
  args.insert(args.end(), options.compileArgs.begin(),
              options.compileArgs.end());
  std::string library = dir.path() + "/model.so";
  if (!compileToShared(tandemc, options.modelPath, library, args, error))
    return false;
  return loadSharedLibrary(library, options.modelName, model, error);
}

/// Loads the model named on the command line: a shared library directly, a
/// .onnx / .mlir model after compiling it.
bool loadModel(const RunOptions &options, LoadedModel &model,
               std::string &error) {
  struct stat info;
  if (stat(options.modelPath.c_str(), &info) != 0) {
    error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  if (!S_ISREG(info.st_mode)) {
    error = "not a regular file";
    return false;
  }
  if (isSourceModel(options.modelPath))
    return compileAndLoad(options, model, error);
  if (!options.cpu.empty() || !options.compileArgs.empty()) {
    error = "--cpu and --compile-arg apply only to .onnx and .mlir models, "
            "which tandem-run compiles; this one is loaded as a shared "
            "library";
    return false;
  }
  return loadSharedLibrary(options.modelPath, options.modelName, model, error);
}

//===--- Element conversion -------------------------------------------===//

float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h >> 15) << 31;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent == 0) {
    float value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  }
  uint32_t bits = exponent == 0x1f
                      ? sign | 0x7f800000u | (mantissa << 13)
                      : sign | ((exponent + 112) << 23) | (mantissa << 13);
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  float magnitude = std::fabs(value);
  if (std::isnan(value))
    return sign | 0x7e00;
  if (magnitude >= 65520.0f)
    return sign | 0x7c00;
  if (magnitude < std::ldexp(1.0f, -14)) // subnormal: units of 2^-24
    return sign | uint16_t(std::nearbyint(magnitude * 16777216.0f));
  int exponent;
  float fraction = std::frexp(magnitude, &exponent); // [0.5, 1)
  uint32_t mantissa = uint32_t(std::nearbyint((fraction * 2 - 1) * 1024));
  uint32_t biased = uint32_t(exponent - 1 + 15);
  return sign | uint16_t((biased << 10) + mantissa); // carry rounds up
}

float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

uint16_t floatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return uint16_t(bits >> 16);
}

double elementAt(const NpyArray &array, int64_t index) {
  const unsigned char *p =
      array.data.data() + index * int64_t(tandem_dtype_size(array.dtype));
  switch (array.dtype) {
  case TANDEM_F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case TANDEM_F16:
  case TANDEM_BF16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return array.dtype == TANDEM_F16 ? halfToFloat(v) : bf16ToFloat(v);
  }
  case TANDEM_I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  case TANDEM_I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case TANDEM_BOOL:
    return *p ? 1 : 0;
  case TANDEM_F64: {
    double v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case TANDEM_I8:
    return double(int8_t(*p));
  case TANDEM_U8:
    return double(*p);
  case TANDEM_I16: {
    int16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case TANDEM_U16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return v;
  }
  case TANDEM_U32: {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case TANDEM_U64: {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  }
  return 0;
}

/// Whether `dtype` holds integers (or bools), which compare exactly.
bool isIntegerDtype(tandem_dtype_t dtype) {
  return dtype != TANDEM_F32 && dtype != TANDEM_F16 && dtype != TANDEM_BF16 &&
         dtype != TANDEM_F64;
}

/// Whether element `i` of `a` and of `b` (integer arrays of one dtype) hold
/// the same bits; unlike elementAt, exact for 64-bit values past 2^53.
bool sameElement(const NpyArray &a, const NpyArray &b, int64_t i) {
  size_t size = tandem_dtype_size(a.dtype);
  return std::memcmp(a.data.data() + i * int64_t(size),
                     b.data.data() + i * int64_t(size), size) == 0;
}

void fillRandom(NpyArray &array, std::mt19937_64 &rng) {
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int64_t> integer(-10, 10);
  int64_t count = array.numElements();
  unsigned char *p = array.data.data();
  for (int64_t i = 0; i < count; ++i) {
    switch (array.dtype) {
    case TANDEM_F32: {
      float v = real(rng);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case TANDEM_F16:
    case TANDEM_BF16: {
      float f = real(rng);
      uint16_t v = array.dtype == TANDEM_F16 ? floatToHalf(f) : floatToBf16(f);
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    case TANDEM_I64: {
      int64_t v = integer(rng);
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    case TANDEM_I32: {
      int32_t v = int32_t(integer(rng));
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case TANDEM_BOOL:
      p[i] = (rng() & 1) ? 1 : 0;
      break;
    case TANDEM_F64: {
      double v = real(rng);
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    case TANDEM_I8:
      p[i] = static_cast<unsigned char>(int8_t(integer(rng)));
      break;
    case TANDEM_I16: {
      int16_t v = int16_t(integer(rng));
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    // Unsigned types draw from [0, 20].
    case TANDEM_U8:
      p[i] = static_cast<unsigned char>(integer(rng) + 10);
      break;
    case TANDEM_U16: {
      uint16_t v = uint16_t(integer(rng) + 10);
      std::memcpy(p + 2 * i, &v, 2);
      break;
    }
    case TANDEM_U32: {
      uint32_t v = uint32_t(integer(rng) + 10);
      std::memcpy(p + 4 * i, &v, 4);
      break;
    }
    case TANDEM_U64: {
      uint64_t v = uint64_t(integer(rng) + 10);
      std::memcpy(p + 8 * i, &v, 8);
      break;
    }
    }
  }
}

NpyArray allocate(const tandem_tensor_desc_t &desc) {
  NpyArray array;
  array.dtype = desc.dtype;
  array.shape = shapeOf(desc);
  array.data.assign(size_t(array.numElements()) * tandem_dtype_size(desc.dtype),
                    0);
  return array;
}

std::string formatIndex(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string text = "[";
  for (size_t d = 0; d < index.size(); ++d)
    text += (d ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

std::string formatValue(double value) {
  std::ostringstream text;
  text.precision(8);
  text << value;
  return text.str();
}

//===--- Steps --------------------------------------------------------===//

/// NumPy has no bf16: a bf16 tensor's .npy form is a <u2 array of its raw
/// bits (what onnx.numpy_helper gives for BFLOAT16). Retypes such an array
/// as bf16 where `expected` is bf16.
void adoptRawBf16(NpyArray &array, tandem_dtype_t expected) {
  if (expected == TANDEM_BF16 && array.dtype == TANDEM_U16)
    array.dtype = TANDEM_BF16;
}

/// Checks an input file against the descriptor.
bool checkInput(const std::string &file, int index,
                const tandem_tensor_desc_t &desc, const NpyArray &array,
                std::string &error) {
  std::vector<int64_t> expected = shapeOf(desc);
  if (array.dtype == desc.dtype && array.shape == expected)
    return true;
  error = file + ": input " + std::to_string(index) + " ('" + desc.name +
          "') expects " + formatType(desc.dtype, expected) + ", got " +
          formatType(array.dtype, array.shape);
  return false;
}

/// Compares `got` with the reference in `file`; prints one line. Returns 0
/// when they match, 1 on a mismatch and 2 on an error.
int compareOutput(const RunOptions &options, const std::string &file,
                  const tandem_tensor_desc_t &desc, const NpyArray &got) {
  NpyArray ref;
  std::string error;
  if (!readNpy(file, ref, error, npyMaxFileBytes(got.dtype, got.shape))) {
    failFile(file, error);
    return 2;
  }
  adoptRawBf16(ref, got.dtype);
  if (ref.shape != got.shape) {
    std::cerr << file << ": error: reference "
              << formatType(ref.dtype, ref.shape) << " does not match output '"
              << desc.name << "' " << formatType(got.dtype, got.shape) << "\n";
    return 2;
  }
  double maxAbs = 0, maxRel = 0;
  int64_t mismatches = 0, first = -1;
  int64_t count = got.numElements();
  // Integer outputs against a reference of their own dtype compare bits.
  bool exact = isIntegerDtype(got.dtype) && ref.dtype == got.dtype;
  for (int64_t i = 0; i < count; ++i) {
    if (exact) {
      if (!sameElement(got, ref, i)) {
        double abs = std::fabs(elementAt(got, i) - elementAt(ref, i));
        maxAbs = std::max(maxAbs, abs);
        if (first < 0)
          first = i;
        ++mismatches;
      }
      continue;
    }
    double a = elementAt(got, i), b = elementAt(ref, i);
    // NaN where the reference has NaN, and the same infinity where it has
    // an infinity, match (numpy.allclose with equal_nan=True).
    if ((std::isnan(a) && std::isnan(b)) || a == b)
      continue;
    double abs = std::fabs(a - b);
    if (std::isnan(abs))
      abs = INFINITY; // NaN against a number, or opposite infinities
    maxAbs = std::max(maxAbs, abs);
    if (b != 0 && std::isfinite(b))
      maxRel = std::max(maxRel, abs / std::fabs(b));
    // An infinity matches only the same infinity (handled above), however
    // loose the tolerance.
    bool infinite = std::isinf(a) || std::isinf(b);
    if (infinite || !(abs <= options.atol + options.rtol * std::fabs(b))) {
      if (first < 0)
        first = i;
      ++mismatches;
    }
  }
  std::cout << "output '" << desc.name << "': max abs error "
            << formatValue(maxAbs) << ", max rel error " << formatValue(maxRel);
  if (!mismatches) {
    std::cout << ": ok\n";
    return 0;
  }
  std::cout << ": MISMATCH, " << mismatches << " of " << count
            << " elements differ (rtol " << options.rtol << ", atol "
            << options.atol << "); first at index "
            << formatIndex(got.shape, first) << ": got "
            << formatValue(elementAt(got, first)) << ", expected "
            << formatValue(elementAt(ref, first)) << "\n";
  return 1;
}

/// The file stem of output `index` named `name`: its characters outside
/// [A-Za-z0-9_.-] become '_'; an empty name or one starting with '.' gets
/// the prefix "output<index>".
std::string outputStem(const std::string &name, int index) {
  std::string clean;
  for (char c : name)
    clean += (isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
              c == '.')
                 ? c
                 : '_';
  if (clean.empty() || clean[0] == '.')
    clean = "output" + std::to_string(index) + clean;
  return clean;
}

/// The --output-dir files of every output: DIR/<stem>.npy, where a stem
/// already taken by an earlier output (two names that clean up alike, such
/// as 'a b' and 'a_b') gets the first free suffix _1, _2, ...; each such
/// renaming is reported on stderr, so that no output silently overwrites
/// another.
std::vector<std::string> outputDirFiles(const std::string &dir,
                                        const tandem_model_desc_t &desc) {
  std::vector<std::string> files, stems;
  auto taken = [&](const std::string &stem) {
    return std::find(stems.begin(), stems.end(), stem) != stems.end();
  };
  for (int32_t i = 0; i < desc.num_outputs; ++i) {
    std::string base = outputStem(desc.outputs[i].name, i), stem = base;
    for (int suffix = 1; taken(stem); ++suffix)
      stem = base + "_" + std::to_string(suffix);
    if (stem != base) {
      size_t owner =
          size_t(std::find(stems.begin(), stems.end(), base) - stems.begin());
      std::cerr << "tandem-run: note: output " << i << " ('"
                << desc.outputs[i].name << "') is written as " << stem
                << ".npy: " << base << ".npy is output " << owner << " ('"
                << desc.outputs[owner].name << "')\n";
    }
    stems.push_back(stem);
    files.push_back(dir + "/" + stem + ".npy");
  }
  return files;
}

void printSummary(const tandem_tensor_desc_t &desc, const NpyArray &array) {
  std::cout << "output '" << desc.name
            << "': " << formatType(array.dtype, array.shape) << " [";
  int64_t count = array.numElements(), shown = std::min<int64_t>(count, 8);
  for (int64_t i = 0; i < shown; ++i)
    std::cout << (i ? ", " : "") << formatValue(elementAt(array, i));
  std::cout << (count > shown ? ", ...]\n" : "]\n");
}

int run(const RunOptions &options) {
  const std::string &path = options.modelPath;
  LoadedModel loaded;
  std::string error;
  if (!loadModel(options, loaded, error))
    return fail(path, error);
  const tandem_model_desc_t *desc = loaded.desc;

  tandem_model_options_t modelOptions;
  tandem_model_options_init(&modelOptions);
  modelOptions.intra_op_threads = options.threads;
  if (options.deviceGiven)
    modelOptions.device = options.device.c_str();
  if (!options.trace.empty())
    modelOptions.trace_path = options.trace.c_str();
  tandem_model_t *rawModel = nullptr;
  if (tandem_status_t status =
          tandem_model_create(desc, &modelOptions, &rawModel)) {
    std::string message = tandem_status_message(status);
    tandem_status_free(status);
    return fail(path, message);
  }
  std::unique_ptr<tandem_model_t, void (*)(tandem_model_t *)> model(
      rawModel, tandem_model_destroy);

  // Inputs.
  std::vector<NpyArray> inputs(size_t(desc->num_inputs));
  if (options.random && !options.inputs.empty())
    return fail("tandem-run",
                "give either --input files or --random, not both");
  if (options.random) {
    std::mt19937_64 rng(options.seed);
    for (int32_t i = 0; i < desc->num_inputs; ++i) {
      inputs[size_t(i)] = allocate(desc->inputs[i]);
      fillRandom(inputs[size_t(i)], rng);
    }
  } else {
    if (options.inputs.size() != size_t(desc->num_inputs)) {
      std::string names;
      for (int32_t i = 0; i < desc->num_inputs; ++i)
        names += std::string(i ? ", " : "") + desc->inputs[i].name + " " +
                 formatType(desc->inputs[i].dtype, shapeOf(desc->inputs[i]));
      return fail(path, "model '" + std::string(desc->name) + "' has " +
                            std::to_string(desc->num_inputs) + " inputs (" +
                            names + "), got " +
                            std::to_string(options.inputs.size()) +
                            " --input files (or use --random)");
    }
    for (int32_t i = 0; i < desc->num_inputs; ++i) {
      const std::string &file = options.inputs[size_t(i)];
      uint64_t limit =
          npyMaxFileBytes(desc->inputs[i].dtype, shapeOf(desc->inputs[i]));
      if (!readNpy(file, inputs[size_t(i)], error, limit))
        return failFile(file, error);
      adoptRawBf16(inputs[size_t(i)], desc->inputs[i].dtype);
      if (!checkInput(file, i, desc->inputs[i], inputs[size_t(i)], error))
        return failFile(file, error);
    }
  }
  if (!options.outputs.empty() &&
      options.outputs.size() != size_t(desc->num_outputs))
    return fail("tandem-run",
                "model '" + std::string(desc->name) + "' has " +
                    std::to_string(desc->num_outputs) + " outputs, got " +
                    std::to_string(options.outputs.size()) + " --output files");
  if (!options.compare.empty() &&
      options.compare.size() != size_t(desc->num_outputs))
    return fail("tandem-run", "model '" + std::string(desc->name) + "' has " +
                                  std::to_string(desc->num_outputs) +
                                  " outputs, got " +
                                  std::to_string(options.compare.size()) +
                                  " --compare files");

  std::vector<NpyArray> outputs;
  for (int32_t i = 0; i < desc->num_outputs; ++i)
    outputs.push_back(allocate(desc->outputs[i]));

  // One checked run: validates every buffer against the descriptor.
  std::vector<tandem_tensor_t> inputTensors, outputTensors;
  for (int32_t i = 0; i < desc->num_inputs; ++i)
    inputTensors.push_back({inputs[size_t(i)].data.data(),
                            desc->inputs[i].dtype, desc->inputs[i].rank,
                            desc->inputs[i].shape});
  for (int32_t i = 0; i < desc->num_outputs; ++i)
    outputTensors.push_back({outputs[size_t(i)].data.data(),
                             desc->outputs[i].dtype, desc->outputs[i].rank,
                             desc->outputs[i].shape});
  if (tandem_status_t status = tandem_model_run_checked(
          model.get(), inputTensors.data(), desc->num_inputs,
          outputTensors.data(), desc->num_outputs)) {
    std::string message = tandem_status_message(status);
    tandem_status_free(status);
    return fail(path, "run failed: " + message);
  }

  // Benchmark on the unchecked fast path.
  if (options.bench > 0) {
    std::vector<const void *> inputData;
    std::vector<void *> outputData;
    for (const tandem_tensor_t &tensor : inputTensors)
      inputData.push_back(tensor.data);
    for (const tandem_tensor_t &tensor : outputTensors)
      outputData.push_back(tensor.data);
    std::vector<double> ms;
    for (int i = 0; i < options.warmup + options.bench; ++i) {
      auto start = std::chrono::steady_clock::now();
      tandem_status_t status =
          tandem_model_run(model.get(), inputData.data(), outputData.data());
      auto end = std::chrono::steady_clock::now();
      if (status) {
        std::string message = tandem_status_message(status);
        tandem_status_free(status);
        return fail(path, "run failed: " + message);
      }
      if (i >= options.warmup)
        ms.push_back(
            std::chrono::duration<double, std::milli>(end - start).count());
    }
    std::sort(ms.begin(), ms.end());
    size_t p90 = size_t(std::ceil(0.9 * double(ms.size()))) - 1;
    int threads =
        options.threads > 0 ? options.threads : tandem_physical_cores();
    std::printf("bench: model '%s', %d runs after %d warmup, %d threads\n",
                desc->name, options.bench, options.warmup, threads);
    std::printf("latency (ms): min %.4f  median %.4f  p90 %.4f\n", ms.front(),
                ms[(ms.size() - 1) / 2], ms[p90]);
  }

  // Write outputs.
  std::vector<std::string> dirFiles;
  if (options.outputs.empty() && !options.outputDir.empty())
    dirFiles = outputDirFiles(options.outputDir, *desc);
  for (int32_t i = 0; i < desc->num_outputs; ++i) {
    std::string file;
    if (!options.outputs.empty())
      file = options.outputs[size_t(i)];
    else if (!dirFiles.empty())
      file = dirFiles[size_t(i)];
    else
      continue;
    if (!writeNpy(file, outputs[size_t(i)], error))
      return fail("tandem-run", error);
  }

  // Compare, or print a summary when nothing else was asked for.
  int worst = 0;
  for (int32_t i = 0; i < desc->num_outputs && !options.compare.empty(); ++i)
    worst =
        std::max(worst, compareOutput(options, options.compare[size_t(i)],
                                      desc->outputs[i], outputs[size_t(i)]));
  if (worst)
    return 1;
  if (options.compare.empty() && options.outputs.empty() &&
      options.outputDir.empty() && options.bench == 0)
    for (int32_t i = 0; i < desc->num_outputs; ++i)
      printSummary(desc->outputs[i], outputs[size_t(i)]);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Runs a compiled Tandem model (a shared library, or a .onnx "
               "/ .mlir model compiled on the fly with tandemc) on .npy "
               "inputs; writes, compares or times its outputs."};
  app.set_version_flag("--version", "tandem-run (Tandem runtime ABI " +
                                        std::to_string(TANDEM_ABI_VERSION) +
                                        ")");
  RunOptions options;
  app.add_option("model", options.modelPath,
                 "the model: a shared library (.so), or a .onnx / .mlir "
                 "model that tandemc compiles first")
      ->required();
  app.add_option("--model", options.modelName,
                 "model name: use the symbol NAME_descriptor instead of "
                 "tandem_default_model");
  auto *input = app.add_option("--input,-i", options.inputs,
                               "input .npy files, in the model's input order")
                    ->take_all();
  auto *random = app.add_flag("--random", options.random,
                              "random inputs instead of files (floats in "
                              "[-1, 1), integers in [-10, 10])");
  input->excludes(random);
  app.add_option("--seed", options.seed, "seed of --random (default 0)")
      ->needs(random);
  auto *output =
      app.add_option("--output,-o", options.outputs,
                     "output .npy files, in the model's output order")
          ->take_all();
  app.add_option("--output-dir", options.outputDir,
                 "write every output as DIR/<output name>.npy")
      ->excludes(output);
  auto *compare =
      app.add_option("--compare", options.compare,
                     "reference .npy files, one per output; exit 1 on a "
                     "mismatch")
          ->take_all();
  // Every number has a range: a value outside it (or one that does not fit
  // the option's type, such as --threads 99999999999) is a usage error,
  // exit 1.
  app.add_option("--rtol", options.rtol, "relative tolerance of --compare")
      ->needs(compare)
      ->check(CLI::Range(0.0, 1e300));
  app.add_option("--atol", options.atol, "absolute tolerance of --compare")
      ->needs(compare)
      ->check(CLI::Range(0.0, 1e300));
  auto *bench = app.add_option("--bench", options.bench,
                               "time N runs; print min / median / p90 in ms")
                    ->check(CLI::Range(1, kMaxRuns));
  app.add_option("--warmup", options.warmup,
                 "untimed runs before --bench (default 3)")
      ->needs(bench)
      ->check(CLI::Range(0, kMaxRuns));
  app.add_option("--threads", options.threads,
                 "intra-op threads (0: physical cores, 1: no pool; at most " +
                     std::to_string(kMaxThreads) + ")")
      ->check(CLI::Range(0, kMaxThreads));
  auto *device =
      app.add_option("--device", options.device,
                     "where GPU partitions run: auto, cpu, emulated, cuda, "
                     "cuda:N (default: $TANDEM_DEVICE, else auto)");
  app.add_option("--trace", options.trace,
                 "write a Chrome/Perfetto trace of the runs to FILE "
                 "(default: $TANDEM_TRACE)");
  app.add_option("--tandemc", options.tandemc,
                 "the tandemc that compiles .onnx / .mlir models (default: "
                 "$TANDEMC, else tandemc next to tandem-run)");
  app.add_option("--cpu", options.cpu,
                 "with a .onnx / .mlir model: tandemc's --cpu, the CPU to "
                 "generate code for (e.g. native)");
  app.add_option("--compile-arg", options.compileArgs,
                 "with a .onnx / .mlir model: one more tandemc flag "
                 "(repeatable; write --compile-arg=--input-shape "
                 "--compile-arg=x=1x3x8x8)")
      ->allow_extra_args(false);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e); // --help, --version
  } catch (const CLI::ParseError &e) {
    app.exit(e); // prints the message and the usage hint
    return 1;
  }
  options.deviceGiven = device->count() > 0;
  if (options.trace.empty() && app.count("--trace"))
    return fail("--trace", "the trace path is empty");
  if (!options.outputDir.empty()) {
    struct stat info;
    if (stat(options.outputDir.c_str(), &info) != 0 &&
        mkdir(options.outputDir.c_str(), 0777) != 0)
      return fail(options.outputDir, std::string("cannot create directory: ") +
                                         std::strerror(errno));
  }
  int rc;
  try {
    rc = run(options);
  } catch (const std::bad_alloc &) {
    rc = fail("tandem-run", "out of memory");
  } catch (const std::exception &e) {
    rc = fail("tandem-run", std::string("internal error: ") + e.what());
  }
  // A SIGINT / SIGTERM that arrived while a model was compiled: the
  // temporary files are gone, so die of it now as the shell expects.
  if (int signal = pendingInterrupt()) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
  return rc;
}
