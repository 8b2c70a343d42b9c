// RUN: tandem-opt -tandem-lower-to-linalg -split-input-file %s | FileCheck %s

// Unsigned operands pick the unsigned arith ops; the function and every
// value become signless.
// Division by zero divides by 1 and gives 0 instead of trapping.
// CHECK-LABEL: func.func @unsigned_binary
// CHECK-SAME: (%{{.+}}: tensor<4xi8>, %{{.+}}: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi1>, tensor<4xi8>, tensor<4xi8>, tensor<4xi1>)
// CHECK: ^bb0(%[[L:.+]]: i8, %[[R:.+]]: i8, %{{.+}}: i8):
// CHECK: %[[BYZERO:.+]] = arith.cmpi eq, %[[R]], %{{.+}} : i8
// CHECK: %[[SAFE:.+]] = arith.select %[[BYZERO]], %{{.+}}, %[[R]] : i8
// CHECK: %[[Q:.+]] = arith.divui %[[L]], %[[SAFE]] : i8
// CHECK: arith.select %[[BYZERO]], %{{.+}}, %[[Q]] : i8
// CHECK: arith.cmpi ugt
// CHECK: arith.cmpi ult
// CHECK: arith.maxui
// CHECK: arith.minui
// CHECK: %[[ZERO:.+]] = arith.cmpi eq
// CHECK: %[[DIVISOR:.+]] = arith.select %[[ZERO]]
// CHECK: arith.remui %{{.+}}, %[[DIVISOR]]
// CHECK-NOT: ui8
// CHECK-NOT: divsi
// CHECK-NOT: maxsi
// CHECK-NOT: remsi
func.func @unsigned_binary(%a: tensor<4xui8>, %b: tensor<4xui8>)
    -> (tensor<4xui8>, tensor<4xi1>, tensor<4xui8>, tensor<4xui8>,
        tensor<4xi1>) {
  %0 = tandem.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = tandem.cmp gt, %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %2 = tandem.cmp lt, %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %3 = tandem.max %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %4 = tandem.min %3, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %5 = tandem.mod %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %4, %5, %2 : tensor<4xui8>, tensor<4xi1>, tensor<4xui8>,
      tensor<4xui8>, tensor<4xi1>
}

// -----

// The signed integers keep the signed ops; MIN / -1 is -MIN (wrapping),
// x / 0 is 0.
// CHECK-LABEL: func.func @signed_binary
// CHECK: %[[BYZERO:.+]] = arith.cmpi eq
// CHECK: %[[BYMINUSONE:.+]] = arith.cmpi eq
// CHECK: arith.divsi {{.+}} : i16
// CHECK: %[[NEG:.+]] = arith.subi
// CHECK: arith.select %[[BYMINUSONE]], %[[NEG]]
// CHECK: arith.cmpi sgt, {{.+}} : i8
// CHECK: arith.maxsi {{.+}} : i16
func.func @signed_binary(%a: tensor<4xi16>, %b: tensor<4xi16>,
                         %c: tensor<4xi8>, %d: tensor<4xi8>)
    -> (tensor<4xi16>, tensor<4xi1>, tensor<4xi16>) {
  %0 = tandem.div %a, %b : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  %1 = tandem.cmp gt, %c, %d : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  %2 = tandem.max %a, %b : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  return %0, %1, %2 : tensor<4xi16>, tensor<4xi1>, tensor<4xi16>
}

// -----

// Casts from unsigned types convert as unsigned (uitofp, extui), to them
// from floats with fptoui; i8 -> ui16 sign-extends (NumPy's -1 -> 65535);
// a same-width cast (ui8 -> i8) keeps the bits and leaves no op.
// CHECK-LABEL: func.func @unsigned_casts
// CHECK: arith.uitofp {{.+}} : i8 to f32
// CHECK: arith.extui {{.+}} : i8 to i32
// CHECK: arith.fptoui {{.+}} : f32 to i8
// CHECK: arith.extsi {{.+}} : i8 to i16
// CHECK: arith.uitofp {{.+}} : i64 to f64
// CHECK-NOT: arith.bitcast
// CHECK-NOT: arith.sitofp
func.func @unsigned_casts(%a: tensor<4xui8>, %f: tensor<4xf32>,
                          %s: tensor<4xi8>, %w: tensor<4xui64>)
    -> (tensor<4xf32>, tensor<4xi32>, tensor<4xui8>, tensor<4xui16>,
        tensor<4xi8>, tensor<4xf64>) {
  %0 = tandem.cast %a {to = f32} : tensor<4xui8> -> tensor<4xf32>
  %1 = tandem.cast %a {to = i32} : tensor<4xui8> -> tensor<4xi32>
  %2 = tandem.cast %f {to = ui8} : tensor<4xf32> -> tensor<4xui8>
  %3 = tandem.cast %s {to = ui16} : tensor<4xi8> -> tensor<4xui16>
  %4 = tandem.cast %a {to = i8} : tensor<4xui8> -> tensor<4xi8>
  %5 = tandem.cast %w {to = f64} : tensor<4xui64> -> tensor<4xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xi32>, tensor<4xui8>,
      tensor<4xui16>, tensor<4xi8>, tensor<4xf64>
}

// -----

// Constants keep their bits under the signless type (200 is -56 as i8),
// dense_resource weights included; reduce_max of unsigned values starts
// from 0 and takes maxui; relu of unsigned values is the identity.
// CHECK-LABEL: func.func @unsigned_constants_and_reductions
// CHECK-DAG: arith.constant dense<[1, 2, -56, -1]> : tensor<4xi8>
// CHECK-DAG: arith.constant dense_resource<blob> : tensor<2xi16>
// CHECK-DAG: %[[INIT:.+]] = arith.constant 0 : i8
// CHECK: linalg.fill ins(%[[INIT]] : i8)
// CHECK: arith.maxui
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.+]]: i8, %{{.+}}: i8):
// CHECK-NEXT: linalg.yield %[[X]] : i8
// CHECK-NOT: arith.maxsi
func.func @unsigned_constants_and_reductions(%a: tensor<4xui8>)
    -> (tensor<4xui8>, tensor<ui8>, tensor<4xui8>, tensor<2xui16>) {
  %c = tandem.constant dense<[1, 2, 200, 255]> : tensor<4xui8>
  %w = tandem.constant dense_resource<blob> : tensor<2xui16>
  %0 = tandem.add %a, %c : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = tandem.reduce_max %a {axes = array<i64: 0>, keepdims = false}
      : tensor<4xui8> -> tensor<ui8>
  %2 = tandem.relu %a : tensor<4xui8>
  return %0, %1, %2, %w : tensor<4xui8>, tensor<ui8>, tensor<4xui8>,
      tensor<2xui16>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x04000000010002ff"
    }
  }
#-}

// -----

// f64 computes in f64: no narrowing for the math functions.
// CHECK-LABEL: func.func @float64
// CHECK: arith.addf {{.+}} : f64
// CHECK: math.exp {{.+}} : f64
// CHECK: arith.truncf {{.+}} : f64 to f32
func.func @float64(%a: tensor<3xf64>, %b: tensor<3xf64>)
    -> (tensor<3xf64>, tensor<3xf32>) {
  %0 = tandem.add %a, %b : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %1 = tandem.tanh %0 : tensor<3xf64>
  %2 = tandem.cast %1 {to = f32} : tensor<3xf64> -> tensor<3xf32>
  return %1, %2 : tensor<3xf64>, tensor<3xf32>
}

// -----

// f64 tanh: a Taylor polynomial near 0 and exp(-2|x|) elsewhere, since the
// pipelines' exp-based expansion of math.tanh loses tiny x's precision.
// CHECK-LABEL: func.func @tanh_f64
// CHECK: math.absf
// CHECK: math.exp
// CHECK: math.copysign
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK-NOT: math.tanh
func.func @tanh_f64(%a: tensor<3xf64>) -> tensor<3xf64> {
  %0 = tandem.tanh %a : tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// A GPU partition keeps arith.truncf to bf16 (NVVM converts natively); the
// host's bf16 conversions are integer ops.
// CHECK-LABEL: func.func @bf16_host
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.+}} : i16 to bf16
// CHECK-LABEL: func.func @bf16_gpu
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @bf16_host(%a: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = tandem.cast %a {to = bf16} : tensor<4xf32> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
func.func @bf16_gpu(%a: tensor<4xf32>) -> tensor<4xbf16>
    attributes {tandem.device = #tandem.device<"/device:GPU:0">,
                tandem.partition} {
  %0 = tandem.cast %a {to = bf16} : tensor<4xf32> -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Unsigned max pooling: the sign bit flipped (unsigned order as signed
// order), the signed linalg pooling with the signed minimum as padding,
// flipped back.
// CHECK-LABEL: func.func @max_pool_unsigned
// CHECK: %[[SIGN:.+]] = arith.constant -128 : i8
// CHECK: arith.xori %{{.+}}, %[[SIGN]] : i8
// CHECK: %[[LOW:.+]] = arith.constant -128 : i8
// CHECK: tensor.pad
// CHECK: tensor.yield %[[LOW]] : i8
// CHECK: linalg.pooling_nchw_max
// CHECK: arith.xori
func.func @max_pool_unsigned(%x: tensor<1x1x4x4xui8>) -> tensor<1x1x4x4xui8> {
  %0 = tandem.max_pool2d %x {kernel_shape = array<i64: 3, 3>,
      strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
      dilations = array<i64: 1, 1>}
      : tensor<1x1x4x4xui8> -> tensor<1x1x4x4xui8>
  return %0 : tensor<1x1x4x4xui8>
}

// -----

// reduce_min of unsigned values starts from all ones and takes minui.
// CHECK-LABEL: func.func @reduce_min_unsigned
// CHECK: %[[INIT:.+]] = arith.constant -1 : i8
// CHECK: linalg.fill ins(%[[INIT]] : i8)
// CHECK: arith.minui
func.func @reduce_min_unsigned(%a: tensor<4xui8>) -> tensor<ui8> {
  %0 = tandem.reduce_min %a {axes = array<i64: 0>, keepdims = false}
      : tensor<4xui8> -> tensor<ui8>
  return %0 : tensor<ui8>
}
