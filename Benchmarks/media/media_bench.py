"""The photo benchmark's inputs, load, libvips reference and report (see `run`)."""
import argparse
import glob
import io
import json
import os
import statistics
import threading
import time
import urllib.request

PROFILE = [("512", 512), ("128", 128)]
# Each use's variants as libvips makes them: (name, width, height, crop). A profile photo is
# a centre-cropped square; a cover a width (any height); a chat image fits a square box.
USES = {
    "profile": [("512", 512, 512, "centre"), ("128", 128, 128, "centre")],
    "cover": [("1280", 1280, 10_000_000, "none"), ("480", 480, 10_000_000, "none")],
    "chat": [("2048", 2048, 2048, "none"), ("320", 320, 320, "none")],
}
QUALITY = 88


def make_inputs(out):
    """A 12-megapixel camera-like JPEG (4000 × 3000, with EXIF orientation 1) and a
    2-megapixel PNG, made from the photos that ship with scikit-image, enlarged with
    Lanczos and given sensor-like noise so they compress like camera output; plus each
    sample photo as it is, for the quality comparison."""
    import numpy as np
    from PIL import Image
    from skimage import data

    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    samples = {"astronaut": data.astronaut(), "coffee": data.coffee(), "chelsea": data.chelsea(), "rocket": data.rocket()}
    for name, pixels in samples.items():
        Image.fromarray(pixels).save(os.path.join(out, f"q-{name}.png"))
    # A 2 × 2 mosaic of the samples, each brought to 800 × 600 first (their sizes differ).
    tiles = [np.asarray(Image.fromarray(samples[name]).resize((800, 600), Image.LANCZOS)) for name in ["astronaut", "coffee", "chelsea", "rocket"]]
    mosaic = np.concatenate([np.concatenate(tiles[:2], axis=1), np.concatenate(tiles[2:], axis=1)], axis=0)
    big = Image.fromarray(mosaic).resize((4000, 3000), Image.LANCZOS)
    noisy = np.clip(np.asarray(big, dtype=np.float32) + rng.normal(0, 4, (3000, 4000, 3)), 0, 255).astype(np.uint8)
    Image.fromarray(noisy).save(os.path.join(out, "camera.jpg"), quality=92)
    Image.fromarray(noisy).save(os.path.join(out, "q-camera.jpg"), quality=92)
    graphic = Image.fromarray(mosaic).resize((1600, 1200), Image.LANCZOS)
    graphic.save(os.path.join(out, "graphic.png"))


def upload(server, token, path, use="profile"):
    body = open(path, "rb").read()
    kind = "image/png" if path.endswith(".png") else "image/jpeg"
    request = urllib.request.Request(f"{server}/v1/media?use={use}", data=body, method="POST",
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": kind})
    started = time.perf_counter()
    with urllib.request.urlopen(request) as response:
        answer = json.load(response)
        assert response.status == 201, response.status
    return time.perf_counter() - started, answer


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def throughput(args):
    token = os.environ["TOKEN"]
    results = {}
    for name in ["camera.jpg", "graphic.png"]:
        path = os.path.join(args.inputs, name)
        upload(args.server, token, path)  # warm
        times = []
        started = time.perf_counter()
        for _ in range(args.count):
            times.append(upload(args.server, token, path)[0])
        elapsed = time.perf_counter() - started
        results[name] = {"per_second": args.count / elapsed, "p50_ms": 1000 * statistics.median(times), "p99_ms": 1000 * percentile(times, 99)}
    json.dump(results, open(args.out, "w"))


def rss_peak(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0


def rss_now(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0


def register(server, name):
    """A fresh account's token: each concurrent client is its own user (one user may
    have at most 2 uploads in flight)."""
    body = json.dumps({"name": name, "email": f"{name}-{time.time_ns()}@example.com", "password": "media benchmark password"}).encode()
    request = urllib.request.Request(f"{server}/v1/auth/register", data=body, method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)["access_token"]


def concurrent(args):
    tokens = [register(args.server, f"uploader{n}") for n in range(args.clients)]
    results = {"rss_before_mb": rss_now(args.pid)}
    for name in ["camera.jpg", "graphic.png"]:
        path = os.path.join(args.inputs, name)
        times, lock = [], threading.Lock()
        per_client = max(1, args.count // args.clients)

        failures = []

        def client(token):
            for _ in range(per_client):
                try:
                    elapsed, _ = upload(args.server, token, path)
                except Exception as error:  # counted and reported: the figures are of answered uploads only
                    with lock:
                        failures.append(repr(error))
                    continue
                with lock:
                    times.append(elapsed)

        started = time.perf_counter()
        threads = [threading.Thread(target=client, args=(token,)) for token in tokens]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        results[name] = {"per_second": len(times) / elapsed, "p50_ms": 1000 * statistics.median(times), "p99_ms": 1000 * percentile(times, 99), "failures": failures}
    results["rss_peak_mb"] = rss_peak(args.pid)
    json.dump(results, open(args.out, "w"))


def vips_variants(path, use="profile"):
    import pyvips
    out = []
    for name, width, height, crop in USES[use]:
        image = pyvips.Image.thumbnail(path, width, height=height, crop=crop, size="down")
        out.append((name, image))
    return out


def vips(args):
    results = {}
    for name in ["camera.jpg", "graphic.png"]:
        path = os.path.join(args.inputs, name)
        for _, image in vips_variants(path):
            image.jpegsave_buffer(Q=QUALITY, strip=True)
        started = time.perf_counter()
        times = []
        for _ in range(args.count):
            t = time.perf_counter()
            for _, image in vips_variants(path):
                image.jpegsave_buffer(Q=QUALITY, strip=True)
            times.append(time.perf_counter() - t)
        elapsed = time.perf_counter() - started
        results[name] = {"per_second": args.count / elapsed, "p50_ms": 1000 * statistics.median(times), "p99_ms": 1000 * percentile(times, 99)}
    json.dump(results, open(args.out, "w"))


def psnr(a, b):
    import numpy as np
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)


def reference(path, use, width, height):
    """libvips' thumbnail of `path` at the size of our variant, on the same geometry: a
    profile photo is the centred square of the source (the offset rounded in the source,
    as ours is) made smaller; other uses are the whole picture. Thumbnails are made in
    sRGB with libvips' default kernel (lanczos3) and shrink-on-load where it applies."""
    import pyvips
    if use == "profile":
        source = pyvips.Image.new_from_file(path)
        side = min(source.width, source.height)
        square = source.crop((source.width - side) // 2, (source.height - side) // 2, side, side)
        return square.thumbnail_image(width, height=height, size="force").copy_memory()
    return pyvips.Image.thumbnail(path, width, height=height, size="force").copy_memory()


def pixels(image):
    import numpy as np
    return np.ndarray(buffer=image.write_to_memory(), dtype=np.uint8, shape=[image.height, image.width, image.bands])[:, :, :3]


def quality(args):
    import numpy as np
    import pyvips
    from PIL import Image
    token = os.environ["TOKEN"]
    rows = []
    for path in sorted(glob.glob(os.path.join(args.inputs, "q-*"))):
        for use in USES:
            _, answer = upload(args.server, token, path, use)
            for variant in answer["variants"]:
                url = variant["url"] if variant["url"].startswith("http") else args.server + variant["url"]
                ours = np.asarray(Image.open(io.BytesIO(urllib.request.urlopen(url).read())).convert("RGB"))
                thumbnail = reference(path, use, ours.shape[1], ours.shape[0])
                theirs = pixels(thumbnail)
                # What JPEG at the same quality costs libvips' own thumbnail: the ceiling a
                # JPEG variant can reach against it.
                own = pixels(pyvips.Image.new_from_buffer(thumbnail.jpegsave_buffer(Q=QUALITY, strip=True), ""))
                rows.append({"input": os.path.basename(path)[2:], "use": use, "variant": variant["name"], "size": f"{ours.shape[1]}×{ours.shape[0]}",
                             "psnr": psnr(ours, theirs), "ceiling": psnr(own, theirs), "jpeg": psnr(ours, own)})
    json.dump(rows, open(args.out, "w"))
def report(args):
    single = json.load(open(os.path.join(args.work, "single.json")))
    many = json.load(open(os.path.join(args.work, "concurrent.json")))
    vips_figures = json.load(open(os.path.join(args.work, "vips.json")))
    quality_rows = json.load(open(os.path.join(args.work, "quality.json")))
    print("| input | ours, 1 thread: uploads/s | p50 | p99 | libvips, 1 thread: thumbnails/s | p50 | ours / libvips | ours, 8 at once: uploads/s | p99 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in ["camera.jpg", "graphic.png"]:
        s, v, c = single[name], vips_figures[name], many[name]
        print(f"| {name} | {s['per_second']:.1f} | {s['p50_ms']:.0f} ms | {s['p99_ms']:.0f} ms | {v['per_second']:.1f} | {v['p50_ms']:.0f} ms | "
              f"{100 * s['per_second'] / v['per_second']:.0f} % | {c['per_second']:.1f} | {c['p99_ms']:.0f} ms |")
    print()
    failed = sum(len(many[name]["failures"]) for name in ["camera.jpg", "graphic.png"])
    print(f"Server RSS: {many['rss_before_mb']:.0f} MB before the concurrent uploads, peak {many['rss_peak_mb']:.0f} MB (VmHWM) with 8 at once "
          f"(8 users, each uploading in turn; {failed} uploads refused or failed).")
    print()
    print("| photo | use | variant | size | our JPEG against libvips' JPEG (Q 88) of its thumbnail | our JPEG against libvips' thumbnail (pixels) | libvips' own JPEG against its thumbnail |")
    print("|---|---|---|---|---:|---:|---:|")
    for row in quality_rows:
        same = "identical bytes" if row["jpeg"] == float("inf") else f"{row['jpeg']:.1f} dB"
        print(f"| {row['input']} | {row['use']} | {row['variant']} | {row['size']} | {same} | {row['psnr']:.1f} dB | {row['ceiling']:.1f} dB |")
    print()
    print(f"Over {len(quality_rows)} variants (\"identical bytes\": no resizing was needed, and both JPEGs came out byte for byte the same): against libvips' JPEG, lowest {min(row['jpeg'] for row in quality_rows):.1f} dB "
          f"({sum(row['jpeg'] >= 35 for row in quality_rows)} at 35 dB or more); against its pixels, lowest {min(row['psnr'] for row in quality_rows):.1f} dB, "
          f"and libvips' own JPEG against the same pixels lowest {min(row['ceiling'] for row in quality_rows):.1f} dB; "
          f"largest gap between ours and libvips' own JPEG: {max(row['ceiling'] - row['psnr'] for row in quality_rows):.2f} dB.")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("inputs"); p.add_argument("--out", required=True)
    for command in ["throughput", "concurrent", "quality"]:
        p = sub.add_parser(command)
        p.add_argument("--server", required=True); p.add_argument("--inputs", required=True); p.add_argument("--out", required=True)
        p.add_argument("--count", type=int, default=40); p.add_argument("--clients", type=int, default=8); p.add_argument("--pid", type=int, default=0)
    p = sub.add_parser("vips"); p.add_argument("--inputs", required=True); p.add_argument("--out", required=True); p.add_argument("--count", type=int, default=40)
    p = sub.add_parser("report"); p.add_argument("--work", required=True)
    args = parser.parse_args()
    {"inputs": lambda a: make_inputs(a.out), "throughput": throughput, "concurrent": concurrent, "quality": quality, "vips": vips, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
