//===- TandemAttrs.td - tandem attributes and enums --------*- tablegen -*-===//
//
// Attributes of the tandem dialect: the device attribute and the enums used by
// op attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_ATTRS_TD
#define TANDEM_ATTRS_TD

include "dialects/Tandem/IR/TandemDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

// Device kinds are DeviceName::Kind (DeviceName.h), the one enum that
// placement, the targets and #tandem.device share.

def Tandem_FusionKind : I32EnumAttr<"FusionKind", "kind of fusion", [
    I32EnumAttrCase<"Loop", 0, "loop">,
    I32EnumAttrCase<"Input", 1, "input">,
    I32EnumAttrCase<"Output", 2, "output">,
    I32EnumAttrCase<"MultiOutput", 3, "multi_output">
  ]> {
  let cppNamespace = "::mlir::tandem";
  let genSpecializedAttr = 0;
}

def Tandem_FusionKindAttr : EnumAttr<Tandem_Dialect, Tandem_FusionKind,
                                     "fusion_kind"> {
  let assemblyFormat = "$value";
}

def Tandem_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"EQ", 0, "eq">,
    I32EnumAttrCase<"NE", 1, "ne">,
    I32EnumAttrCase<"LT", 2, "lt">,
    I32EnumAttrCase<"LE", 3, "le">,
    I32EnumAttrCase<"GT", 4, "gt">,
    I32EnumAttrCase<"GE", 5, "ge">
  ]> {
  let cppNamespace = "::mlir::tandem";
  let genSpecializedAttr = 0;
}

def Tandem_CmpPredicateAttr : EnumAttr<Tandem_Dialect, Tandem_CmpPredicate,
                                       "cmp_predicate"> {
  let assemblyFormat = "$value";
}

def Tandem_PadMode : I32EnumAttr<"PadMode", "padding mode", [
    I32EnumAttrCase<"Constant", 0, "constant">,
    I32EnumAttrCase<"Reflect", 1, "reflect">,
    I32EnumAttrCase<"Edge", 2, "edge">,
    I32EnumAttrCase<"Wrap", 3, "wrap">
  ]> {
  let cppNamespace = "::mlir::tandem";
  let genSpecializedAttr = 0;
}

def Tandem_PadModeAttr : EnumAttr<Tandem_Dialect, Tandem_PadMode, "pad_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tandem_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "approximation used by gelu", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Tanh", 1, "tanh">
  ]> {
  let cppNamespace = "::mlir::tandem";
  let genSpecializedAttr = 0;
}

def Tandem_GeluApproximationAttr : EnumAttr<Tandem_Dialect,
    Tandem_GeluApproximation, "gelu_approximation"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Device attribute
//===----------------------------------------------------------------------===//

def Tandem_DeviceAttr : AttrDef<Tandem_Dialect, "Device"> {
  let mnemonic = "device";
  let summary = "a device named the way TensorFlow names devices";
  let description = [{
    Names one device of the build target: `/device:CPU:0`, `/device:GPU:0`,
    `/device:GPU:1`, ... It is printed and parsed in that form, quoted:

    ```mlir
    #tandem.device<"/device:GPU:0">
    ```

    The parser also accepts TensorFlow's fully qualified form
    (`/job:localhost/replica:0/task:0/device:GPU:0`), the short forms
    `CPU:0` / `gpu:1` and a bare `cpu` / `gpu` (index 0), and always prints the
    canonical `/device:<KIND>:<index>`.

    Attached to an op as the discardable `tandem.device` attribute, it records
    where the op runs.
  }];
  let parameters = (ins
    "::mlir::tandem::DeviceName::Kind":$kind,
    "unsigned":$index
  );
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The canonical TensorFlow-style name, e.g. "/device:GPU:0".
    std::string getName() const;
    bool isCPU() const {
      return getKind() == ::mlir::tandem::DeviceName::Kind::CPU;
    }
    bool isGPU() const {
      return getKind() == ::mlir::tandem::DeviceName::Kind::GPU;
    }
    ::mlir::tandem::DeviceName getDeviceName() const {
      return {getKind(), getIndex()};
    }
  }];
}

#endif // TANDEM_ATTRS_TD
