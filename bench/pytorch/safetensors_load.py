"""The PyTorch side of the `checkpoint-load` bench: loads a Hugging Face safetensors directory
(`model.safetensors.index.json` + shards, or `model.safetensors`) into float32 torch tensors as
`safetensors.torch.load_file` would, without the `safetensors` package (not installed here): the
8-byte header length and JSON header parsed by hand, then each tensor read with `readinto` straight
into a `torch.empty` of its shape (no intermediate copy). Timed alone; then the SHA-256 of every
tensor's bytes is compared with `bench-expected.json`. Usage: python3 safetensors_load.py <dir>;
prints one JSON line (a `LoadRun`)."""
import hashlib
import json
import os
import resource
import sys
import time

import torch

DTYPES = {'F32': torch.float32, 'F16': torch.float16, 'BF16': torch.bfloat16}


def load(directory):
    index_path = os.path.join(directory, 'model.safetensors.index.json')
    if os.path.exists(index_path):
        with open(index_path) as f:
            files = sorted(set(json.load(f)['weight_map'].values()))
    else:
        files = ['model.safetensors']
    tensors = {}
    for name in files:
        with open(os.path.join(directory, name), 'rb', buffering=0) as f:
            n = int.from_bytes(f.read(8), 'little')
            header = json.loads(f.read(n))
            start = 8 + n
            for key, entry in header.items():
                if key == '__metadata__':
                    continue
                t = torch.empty(entry['shape'], dtype=DTYPES[entry['dtype']])
                begin, end = entry['data_offsets']
                if end == begin:
                    tensors[key] = t.float()
                    continue
                f.seek(start + begin)
                # numpy has no bfloat16: 2-byte tensors are read through an int16 view of the same memory.
                arr = (t.view(torch.int16) if t.element_size() == 2 else t).numpy()
                view = memoryview(arr).cast('B')
                done = 0
                while done < end - begin:
                    got = f.readinto(view[done:])
                    if not got:
                        raise EOFError(name)
                    done += got
                tensors[key] = t if t.dtype == torch.float32 else t.float()
    return tensors


def main():
    directory = sys.argv[1]
    with open(os.path.join(directory, 'bench-expected.json')) as f:
        expected = json.load(f)
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    tensors = load(directory)
    ms = (time.perf_counter() - t0) * 1000
    cpu_ms = (time.process_time() - cpu0) * 1000
    mismatches = len(expected) - len(tensors)
    size = 0
    for key, t in tensors.items():
        size += t.numel() * 4
        if expected.get(key) != hashlib.sha256(memoryview(t.contiguous().numpy()).cast('B')).hexdigest():
            mismatches += 1
    print(json.dumps({
        'side': 'pytorch',
        'ms': ms,
        'cpuMs': cpu_ms,
        'bytes': size,
        'tensors': len(tensors),
        'mismatches': mismatches,
        'maxRssBytes': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }))


if __name__ == '__main__':
    main()
