;; The AdamW kernels of adamw-wasm.ts, four float32s per instruction (WebAssembly 128-bit SIMD).
;; Compiled bytes are embedded in adamw-wasm.ts; adamw-wasm.test.ts checks they match this source.
;; Every array starts at a 16-byte aligned offset and is padded with zeros to a multiple of four
;; values, so the loops run over whole groups of four.
(module
  (memory (export "memory") 1)
  ;; In place over n4 groups at byte offsets w, g, m, v (c1, c2 carry the gradient scale; sib is
  ;; 1 / sqrt of the second bias correction; stepSize is lr / the first bias correction):
  ;;   m = b1 m + c1 g;  v = b2 v + c2 g^2;  w = decay w - stepSize m / (sqrt(v) sib + eps)
  (func (export "adamw")
    (param $w i32) (param $g i32) (param $m i32) (param $v i32) (param $n4 i32)
    (param $b1 f32) (param $c1 f32) (param $b2 f32) (param $c2 f32)
    (param $decay f32) (param $stepSize f32) (param $sib f32) (param $eps f32)
    (local $B1 v128) (local $C1 v128) (local $B2 v128) (local $C2 v128)
    (local $D v128) (local $S v128) (local $I v128) (local $E v128)
    (local $gi v128) (local $mi v128) (local $vi v128) (local $off i32) (local $end i32)
    (local.set $B1 (f32x4.splat (local.get $b1)))
    (local.set $C1 (f32x4.splat (local.get $c1)))
    (local.set $B2 (f32x4.splat (local.get $b2)))
    (local.set $C2 (f32x4.splat (local.get $c2)))
    (local.set $D (f32x4.splat (local.get $decay)))
    (local.set $S (f32x4.splat (local.get $stepSize)))
    (local.set $I (f32x4.splat (local.get $sib)))
    (local.set $E (f32x4.splat (local.get $eps)))
    (local.set $end (i32.shl (local.get $n4) (i32.const 4)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $off) (local.get $end)))
        (local.set $gi (v128.load (i32.add (local.get $g) (local.get $off))))
        (local.set $mi (f32x4.add
          (f32x4.mul (local.get $B1) (v128.load (i32.add (local.get $m) (local.get $off))))
          (f32x4.mul (local.get $C1) (local.get $gi))))
        (local.set $vi (f32x4.add
          (f32x4.mul (local.get $B2) (v128.load (i32.add (local.get $v) (local.get $off))))
          (f32x4.mul (local.get $C2) (f32x4.mul (local.get $gi) (local.get $gi)))))
        (v128.store (i32.add (local.get $m) (local.get $off)) (local.get $mi))
        (v128.store (i32.add (local.get $v) (local.get $off)) (local.get $vi))
        (v128.store (i32.add (local.get $w) (local.get $off))
          (f32x4.sub
            (f32x4.mul (local.get $D) (v128.load (i32.add (local.get $w) (local.get $off))))
            (f32x4.div (f32x4.mul (local.get $S) (local.get $mi))
              (f32x4.add (f32x4.mul (f32x4.sqrt (local.get $vi)) (local.get $I)) (local.get $E)))))
        (local.set $off (i32.add (local.get $off) (i32.const 16)))
        (br $next))))
  ;; The sum of squares of n4 groups at byte offset p, accumulated in float64 (two lanes each for
  ;; the low and the high pair of every group).
  (func (export "sumSquares") (param $p i32) (param $n4 i32) (result f64)
    (local $x v128) (local $lo v128) (local $hi v128) (local $off i32) (local $end i32)
    (local.set $end (i32.shl (local.get $n4) (i32.const 4)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $off) (local.get $end)))
        (local.set $x (v128.load (i32.add (local.get $p) (local.get $off))))
        (local.set $lo (f64x2.add (local.get $lo)
          (f64x2.mul (f64x2.promote_low_f32x4 (local.get $x)) (f64x2.promote_low_f32x4 (local.get $x)))))
        (local.set $x (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $x) (local.get $x)))
        (local.set $hi (f64x2.add (local.get $hi)
          (f64x2.mul (f64x2.promote_low_f32x4 (local.get $x)) (f64x2.promote_low_f32x4 (local.get $x)))))
        (local.set $off (i32.add (local.get $off) (i32.const 16)))
        (br $next)))
    (local.set $lo (f64x2.add (local.get $lo) (local.get $hi)))
    (f64.add (f64x2.extract_lane 0 (local.get $lo)) (f64x2.extract_lane 1 (local.get $lo)))))
