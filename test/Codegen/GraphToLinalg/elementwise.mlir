// RUN: tandem-opt -tandem-lower-to-linalg -split-input-file %s | FileCheck %s

// A binary op broadcasts a trailing 1-D operand through its indexing map.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.+]]: tensor<7x13xf32>, %[[B:.+]]: tensor<13xf32>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<7x13xf32>
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<7x13xf32>, tensor<13xf32>) outs(%[[INIT]] : tensor<7x13xf32>)
// CHECK: arith.addf
// CHECK: return %[[R]]
// CHECK-NOT: tandem.
func.func @add_broadcast(%a: tensor<7x13xf32>, %b: tensor<13xf32>) -> tensor<7x13xf32> {
  %0 = tandem.add %a, %b : (tensor<7x13xf32>, tensor<13xf32>) -> tensor<7x13xf32>
  return %0 : tensor<7x13xf32>
}

// -----

// Size-1 dims that broadcast read index 0 on both sides.
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @mul_both_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #{{.+}}]
// CHECK: arith.mulf
func.func @mul_both_broadcast(%a: tensor<7x1xf32>, %b: tensor<1x13xf32>) -> tensor<7x13xf32> {
  %0 = tandem.mul %a, %b : (tensor<7x1xf32>, tensor<1x13xf32>) -> tensor<7x13xf32>
  return %0 : tensor<7x13xf32>
}

// -----

// Integer division truncates (divsi); a rank-0 operand has an empty map.
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @div_int
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[SCALAR]], #{{.+}}]
// CHECK: arith.divsi %{{.+}}, %{{.+}} : i64
func.func @div_int(%a: tensor<4xi64>, %b: tensor<i64>) -> tensor<4xi64> {
  %0 = tandem.div %a, %b : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Integer relu is a signed max with zero.
// CHECK-LABEL: func.func @relu_int
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK: arith.maxsi %{{.+}}, %[[ZERO]] : i32
func.func @relu_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tandem.relu %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Float relu, sigmoid, erf and rsqrt map to arith/math.
// CHECK-LABEL: func.func @unary_float
// CHECK: arith.maximumf
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: math.erf
// CHECK: math.rsqrt
func.func @unary_float(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.relu %a : tensor<4xf32>
  %1 = tandem.sigmoid %0 : tensor<4xf32>
  %2 = tandem.erf %1 : tensor<4xf32>
  %3 = tandem.rsqrt %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// `ne` is unordered (true for NaN); the others are ordered.
// CHECK-LABEL: func.func @cmp_float
// CHECK: %[[NE:.+]] = linalg.generic
// CHECK: arith.cmpf une
// CHECK: -> tensor<4xi1>
// CHECK: arith.cmpf olt
func.func @cmp_float(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = tandem.cmp ne, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = tandem.cmp lt, %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// Integer comparisons are signed.
// CHECK-LABEL: func.func @cmp_int
// CHECK: arith.cmpi sge, %{{.+}}, %{{.+}} : i64
func.func @cmp_int(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi1> {
  %0 = tandem.cmp ge, %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// where broadcasts all three operands and selects.
// CHECK-DAG: #[[COND:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[C:.+]]: tensor<4x1xi1>, %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<f32>)
// CHECK: linalg.generic {indexing_maps = [#[[COND]], #{{.+}}, #[[SCALAR]], #{{.+}}]
// CHECK-SAME: ins(%[[C]], %[[A]], %[[B]] :
// CHECK: ^bb0(%[[CI:.+]]: i1, %[[AI:.+]]: f32, %[[BI:.+]]: f32, %{{.+}}: f32):
// CHECK: arith.select %[[CI]], %[[AI]], %[[BI]] : f32
func.func @where(%c: tensor<4x1xi1>, %a: tensor<4x3xf32>, %b: tensor<f32>) -> tensor<4x3xf32> {
  %0 = tandem.where %c, %a, %b : (tensor<4x1xi1>, tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// Casts: float to int truncates, to i1 compares with zero, i1 widens unsigned,
// f16 to bf16 goes through f32, whose rounding to bf16 is integer ops on
// the host (round to nearest even, no __truncsfbf2 call).
// CHECK-LABEL: func.func @casts
// CHECK: arith.fptosi %{{.+}} : f32 to i64
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.cmpf une, %{{.+}}, %[[ZERO]] : f32
// CHECK: arith.extui %{{.+}} : i1 to i32
// CHECK: %[[WIDE:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: arith.bitcast %[[WIDE]] : f32 to i32
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.+}} : i16 to bf16
func.func @casts(%a: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xi64>, tensor<4xi32>, tensor<4xbf16>) {
  %0 = tandem.cast %a {to = i64} : tensor<4xf32> -> tensor<4xi64>
  %1 = tandem.cast %a {to = i1} : tensor<4xf32> -> tensor<4xi1>
  %2 = tandem.cast %1 {to = i32} : tensor<4xi1> -> tensor<4xi32>
  %3 = tandem.cast %h {to = bf16} : tensor<4xf16> -> tensor<4xbf16>
  return %0, %2, %3 : tensor<4xi64>, tensor<4xi32>, tensor<4xbf16>
}

// -----

// clip clamps with maximumf then minimumf.
// CHECK-LABEL: func.func @clip
// CHECK: %[[LO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[MAX:.+]] = arith.maximumf %{{.+}}, %[[LO]] : f32
// CHECK: %[[HI:.+]] = arith.constant 6.000000e+00 : f32
// CHECK: arith.minimumf %[[MAX]], %[[HI]] : f32
func.func @clip(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.clip %a {min = 0.0 : f32, max = 6.0 : f32} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// gelu: erf form by default, tanh form on request.
// CHECK-LABEL: func.func @gelu
// CHECK: math.erf
// CHECK-NOT: math.tanh
// CHECK: } -> tensor<4xf32>
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: math.tanh
// CHECK-NOT: math.erf
func.func @gelu(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tandem.gelu %a : tensor<4xf32>
  %1 = tandem.gelu %a {approximate = #tandem.gelu_approximation<tanh>} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// bias_add reads the bias along its axis.
// CHECK-DAG: #[[CHAN:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: (%[[X:.+]]: tensor<1x8x4x4xf32>, %[[B:.+]]: tensor<8xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[CHAN]], #{{.+}}]
// CHECK-SAME: ins(%[[X]], %[[B]] :
// CHECK: arith.addf
func.func @bias_add(%a: tensor<1x8x4x4xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = tandem.bias_add %a, %b {axis = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// batch_norm: (x - mean) * rsqrt(var + eps) * scale + bias, per channel.
// CHECK-DAG: #[[CHAN:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[CHAN]], #[[CHAN]], #[[CHAN]], #[[CHAN]], #{{.+}}]
// CHECK: ^bb0(%[[X:.+]]: f32, %[[S:.+]]: f32, %[[B:.+]]: f32, %[[M:.+]]: f32, %[[V:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[VE:.+]] = arith.addf %[[V]], %[[EPS]]
// CHECK: %[[INV:.+]] = math.rsqrt %[[VE]]
// CHECK: %[[C:.+]] = arith.subf %[[X]], %[[M]]
// CHECK: %[[F:.+]] = arith.mulf %[[INV]], %[[S]]
// CHECK: %[[Y:.+]] = arith.mulf %[[C]], %[[F]]
// CHECK: arith.addf %[[Y]], %[[B]]
func.func @batch_norm(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = tandem.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// A channels-last batch_norm (axis 3, from tandem-assign-gpu-layout) reads
// its parameters at the last index.
// CHECK-DAG: #[[LAST:.+]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @batch_norm_nhwc
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[LAST]], #[[LAST]], #[[LAST]], #[[LAST]], #{{.+}}]
func.func @batch_norm_nhwc(%x: tensor<1x4x4x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = tandem.batch_norm %x, %s, %b, %m, %v {axis = 3 : i64} : (tensor<1x4x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

// The trigonometric, hyperbolic and rounding ops map to math ops; round is
// half to even.
// CHECK-LABEL: func.func @math_unary
// CHECK: math.sin
// CHECK: math.acosh
// CHECK: math.floor
// CHECK: math.ceil
// CHECK: math.roundeven
// CHECK-NOT: tandem.
func.func @math_unary(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tandem.sin %a : tensor<4xf32>
  %1 = tandem.acosh %a : tensor<4xf32>
  %2 = tandem.floor %a : tensor<4xf32>
  %3 = tandem.ceil %a : tensor<4xf32>
  %4 = tandem.round %a : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// f16 trigonometric functions and tanh compute in f32 (libm and libdevice
// have no f16 forms; tanh's expansion in f16 is 0 for tiny x); rounding
// stays f16.
// CHECK-LABEL: func.func @math_unary_f16
// CHECK: %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: %[[S:.+]] = math.tan %[[W]] : f32
// CHECK: arith.truncf %[[S]] : f32 to f16
// CHECK: math.floor %{{.+}} : f16
// CHECK: %[[TW:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: %[[T:.+]] = math.tanh %[[TW]] : f32
// CHECK: arith.truncf %[[T]] : f32 to f16
func.func @math_unary_f16(%a: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) {
  %0 = tandem.tan %a : tensor<4xf16>
  %1 = tandem.floor %a : tensor<4xf16>
  %2 = tandem.tanh %a : tensor<4xf16>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>
}

// -----

// A float remainder with fmod is frem (C fmod).
// CHECK-LABEL: func.func @mod_float
// CHECK: arith.remf %{{.+}}, %{{.+}} : f32
func.func @mod_float(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tandem.mod %a, %b {fmod = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An integer remainder divides by 1 where the divisor is 0 or -1 (no trap),
// and the floored form moves a remainder whose sign differs from the
// divisor's by adding the divisor.
// CHECK-LABEL: func.func @mod_int_floored
// CHECK: ^bb0(%[[L:.+]]: i64, %[[R:.+]]: i64, %{{.+}}: i64):
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : i64
// CHECK: %[[Z:.+]] = arith.cmpi eq, %[[R]], %[[ZERO]]
// CHECK: %[[M1:.+]] = arith.constant -1 : i64
// CHECK: %[[N:.+]] = arith.cmpi eq, %[[R]], %[[M1]]
// CHECK: %[[BAD:.+]] = arith.ori %[[Z]], %[[N]]
// CHECK: %[[D:.+]] = arith.select %[[BAD]], %[[ONE]], %[[R]]
// CHECK: %[[REM:.+]] = arith.remsi %[[L]], %[[D]]
// CHECK: %[[FIX:.+]] = arith.addi %[[REM]], %[[D]]
// CHECK: %[[Y:.+]] = arith.select %{{.+}}, %[[FIX]], %[[REM]]
// CHECK: linalg.yield %[[Y]]
func.func @mod_int_floored(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = tandem.mod %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// With fmod the integer remainder is remsi as is.
// CHECK-LABEL: func.func @mod_int_truncated
// CHECK: %[[REM:.+]] = arith.remsi
// CHECK-NOT: arith.addi
// CHECK: linalg.yield %[[REM]]
func.func @mod_int_truncated(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = tandem.mod %a, %b {fmod = true} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// and/or/xor are the bitwise arith ops, on bools as on integers.
// CHECK-LABEL: func.func @bitwise
// CHECK: arith.andi %{{.+}}, %{{.+}} : i1
// CHECK: arith.ori %{{.+}}, %{{.+}} : i32
// CHECK: arith.xori %{{.+}}, %{{.+}} : i64
func.func @bitwise(%a: tensor<4xi1>, %b: tensor<4xi32>, %c: tensor<4xi64>) -> (tensor<4xi1>, tensor<4xi32>, tensor<4xi64>) {
  %0 = tandem.and %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = tandem.or %b, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = tandem.xor %c, %c : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi32>, tensor<4xi64>
}

// -----

// Shifts are logical; an amount outside [0, 32) (unsigned) gives 0 rather
// than poison.
// CHECK-LABEL: func.func @shifts
// CHECK: ^bb0(%[[L:.+]]: i32, %[[R:.+]]: i32, %{{.+}}: i32):
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK-DAG: %[[W:.+]] = arith.constant 32 : i32
// CHECK: %[[OK:.+]] = arith.cmpi ult, %[[R]], %[[W]]
// CHECK: %[[AMT:.+]] = arith.select %[[OK]], %[[R]], %[[ZERO]]
// CHECK: %[[S:.+]] = arith.shli %[[L]], %[[AMT]]
// CHECK: arith.select %[[OK]], %[[S]], %[[ZERO]]
// CHECK: arith.shrui
func.func @shifts(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = tandem.shift_left %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tandem.shift_right %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}
