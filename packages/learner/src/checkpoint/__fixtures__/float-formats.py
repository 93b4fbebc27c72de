"""Writes float-formats.json: float32 bit patterns and PyTorch's bfloat16 and float16 bits for them
(`tensor.to(torch.bfloat16)`, `tensor.to(torch.float16)`: round to nearest even). Edge cases (ties,
overflow, subnormals, infinities, NaN) and seeded random patterns. Run: python3 float-formats.py"""
import json
import random
import struct

import torch

edge = [
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000,  # ±0, ±1
    0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF,  # bf16 ties to even, just above/below a tie
    0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F8000, 0x7F7F7FFF,  # largest float32, rounding into bf16 infinity
    0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF,  # ±inf, NaNs
    0x00000001, 0x80000001, 0x007FFFFF, 0x00800000,  # float32 subnormals, smallest normal
    0x477FE000, 0x477FEFFF, 0x477FF000, 0x47800000,  # 65504 (f16 max), ties towards f16 infinity
    0x38800000, 0x387FC000, 0x33800000, 0x33000000, 0x33000001, 0x337FFFFF,  # f16 smallest normal, subnormals, half the smallest subnormal
    0x3F801000, 0x3F803000, 0x3F800FFF, 0x3F802000,  # f16 ties to even at 1
    0x3DCCCCCD, 0x3EAAAAAB, 0xC0490FDB, 0x4B7FFFFF,  # 0.1, 1/3, -pi, 2^24-1
]
rng = random.Random(20261128)
bits = edge + [rng.getrandbits(32) for _ in range(400)]
# Finite values of typical weight magnitudes too.
bits += [struct.unpack('<I', struct.pack('<f', rng.gauss(0, 0.05)))[0] for _ in range(200)]
# The exact bit patterns (no trip through Python floats, which would quiet signalling NaNs).
x = torch.tensor([b - (1 << 32) if b >= 1 << 31 else b for b in bits], dtype=torch.int32).view(torch.float32)
bf16 = x.to(torch.bfloat16).view(torch.int16).tolist()
f16 = x.to(torch.float16).view(torch.int16).tolist()
with open('float-formats.json', 'w') as f:
    json.dump(
        {
            'source': f'PyTorch {torch.__version__}, float-formats.py',
            'float32Bits': bits,
            'bf16Bits': [b & 0xFFFF for b in bf16],
            'f16Bits': [b & 0xFFFF for b in f16],
        },
        f,
    )
    f.write('\n')
print(len(bits))
