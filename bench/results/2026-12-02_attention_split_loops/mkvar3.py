import os, subprocess, sys
sys.path.insert(0, "python")
from tilec.kernels import attention_source
tilec = "build/bin/tilec"
V = ".gpu/var2"
srcs = []
for d in (64, 128):
    srcs.append(attention_source(head_dim=d, causal=False, config={"by_passes": 1}))
    srcs.append(attention_source(head_dim=d, causal=True, config={"by_passes": 1}))
    srcs.append(attention_source(head_dim=d, causal=True, config={"by_passes": 1, "persistent": 1},
                                 name=f"attention_bf16_d{d}_causal_persistent"))
for var in ("new2", "new2_nosplit"):
    out = os.path.join(V, var, "sm_90a")
    os.makedirs(out, exist_ok=True)
    for name, src in srcs:
        if var.endswith("nosplit"):
            first, rest = src.split("\n", 1)
            assert first.rstrip().endswith("{"), first
            src = first.rstrip()[:-1] + "schedule<split_loops = false> {\n" + rest
        path = os.path.join(V, var, f"{name}.mlir")
        open(path, "w").write(src)
        subprocess.run([tilec, path, "--chip=sm_90a", "--cubin-arch=sm_90a", "--emit=cubin", "-o", out], check=True)
        print(var, name, flush=True)
