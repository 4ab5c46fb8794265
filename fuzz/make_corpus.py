#!/usr/bin/env python3
"""Writes the hand-made seed corpora under fuzz/corpus/<target>/ (valid_* files must be accepted by a reader of
their target, bad_* files rejected by all; see tests/io/test_corpus_replay.cpp). Standard library only, except
the JPEG seeds, which need libjpeg-turbo's cjpeg (Debian: libjpeg-turbo-progs) and are skipped without it."""
import os
import shutil
import struct
import subprocess
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    folder = os.path.join(HERE, "corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def ply_header(fmt, elements, comments=()):
    lines = ["ply", "format %s 1.0" % fmt] + ["comment " + c for c in comments]
    for name, count, props in elements:
        lines.append("element %s %d" % (name, count))
        lines += ["property " + p for p in props]
    return ("\n".join(lines + ["end_header"]) + "\n").encode()


def gaussian_names(rest, normals=True):
    names = ["x", "y", "z"] + (["nx", "ny", "nz"] if normals else []) + ["f_dc_0", "f_dc_1", "f_dc_2"]
    names += ["f_rest_%d" % i for i in range(rest)]
    return names + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]


def ply_seeds():
    for degree, rest in ((0, 0), (1, 9)):
        names = gaussian_names(rest)
        rows = b"".join(struct.pack("<%df" % len(names), *[0.1 * (i + j) for j in range(len(names))]) for i in range(2))
        write("ply", "valid_gaussians_degree%d.ply" % degree,
              ply_header("binary_little_endian", [("vertex", 2, ["float " + n for n in names])]) + rows)
    names = gaussian_names(0, normals=False)  # gsplat's layout, here as ascii doubles
    write("ply", "valid_gaussians_ascii.ply",
          ply_header("ascii", [("vertex", 1, ["double " + n for n in names])]).decode() +
          " ".join("0.5" for _ in names) + "\n")
    write("ply", "valid_points.ply",
          ply_header("binary_little_endian", [("vertex", 2, ["float x", "float y", "float z", "uchar red",
                                                              "uchar green", "uchar blue"])]) +
          struct.pack("<3f3B3f3B", 1, 2, 3, 10, 20, 30, -1, -2, -3, 200, 100, 0))
    write("ply", "valid_points_double_be.ply",
          ply_header("binary_big_endian", [("vertex", 1, ["double x", "double y", "double z"])]) +
          struct.pack(">3d", 0.5, 1.5, 2.5))
    write("ply", "valid_mesh_ascii.ply",
          ply_header("ascii", [("vertex", 4, ["float x", "float y", "float z"]),
                               ("face", 1, ["list uchar int vertex_indices"])], ["hand made"]).decode() +
          "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n")
    write("ply", "valid_mesh_tristrips.ply",
          ply_header("binary_little_endian", [("vertex", 4, ["float x", "float y", "float z"]),
                                              ("tristrips", 1, ["list int int vertex_indices"])]) +
          struct.pack("<12f", 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0) + struct.pack("<i6i", 6, 0, 1, 2, 3, -1, 0))
    write("ply", "valid_mesh_be_uint_index.ply",
          ply_header("binary_big_endian", [("vertex", 3, ["int8 x", "uint16 y", "int32 z", "uint extra"]),
                                           ("face", 1, ["list ushort uint vertex_index", "short flags"])]) +
          struct.pack(">" + "bHiI" * 3, 0, 0, 0, 7, 1, 0, 0, 7, 0, 1, 0, 7) + struct.pack(">H3Ih", 3, 0, 1, 2, -5))
    write("ply", "bad_truncated.ply",
          ply_header("binary_little_endian", [("vertex", 3, ["float x", "float y", "float z"])]) + struct.pack("<4f", 1, 2, 3, 4))
    write("ply", "bad_header.ply", "ply\nformat ascii 1.0\nelement vertex 1\nproperty flot x\nend_header\n1\n")
    write("ply", "bad_nan.ply", ply_header("ascii", [("vertex", 1, ["float x", "float y", "float z"])]).decode() + "nan 0 0\n")
    write("ply", "bad_list_length.ply",
          ply_header("binary_little_endian", [("vertex", 0, ["float x", "float y", "float z"]),
                                              ("face", 1, ["list int int vertex_indices"])]) + struct.pack("<2i", 1 << 30, 0))


def colmap_binary_seeds():
    cams = struct.pack("<Q", 2)
    cams += struct.pack("<IiQQ4d", 1, 1, 640, 480, 500, 510, 320, 240)
    cams += struct.pack("<IiQQ3d", 2, 0, 320, 240, 250, 160, 120)
    write("colmap_binary", "valid_cameras.bin", cams)
    write("colmap_binary", "valid_cameras_distorted.bin",
          struct.pack("<Q", 1) + struct.pack("<IiQQ8d", 3, 4, 640, 480, 500, 500, 320, 240, 0.1, 0.01, 0, 0))
    write("colmap_binary", "valid_cameras_fisheye_fov.bin",
          struct.pack("<Q", 2) + struct.pack("<IiQQ8d", 4, 5, 640, 480, 300, 300, 320, 240, 0.05, -0.01, 0.002, 0)
          + struct.pack("<IiQQ5d", 5, 7, 640, 480, 400, 400, 320, 240, 0.9))
    images = struct.pack("<Q", 2)
    images += struct.pack("<I7dI", 1, 1, 0, 0, 0, 0, 0, 4, 1) + b"img_a.jpg\0" + struct.pack("<Q", 2)
    images += struct.pack("<ddQddq", 10.5, 20.5, 0, 30.5, 40.5, -1)
    images += struct.pack("<I7dI", 2, 0.5, 0.5, 0.5, 0.5, 1, 2, 3, 2) + b"img_b.jpg\0" + struct.pack("<Q", 0)
    write("colmap_binary", "valid_images.bin", images)
    points = struct.pack("<Q", 2)
    points += struct.pack("<Q3d3BdQ", 0, 1, 2, 3, 10, 20, 30, 0.5, 2) + struct.pack("<4I", 1, 0, 2, 5)
    points += struct.pack("<Q3d3BdQ", 1, -1, 0, 5, 255, 0, 128, 0.25, 0)
    write("colmap_binary", "valid_points3D.bin", points)
    write("colmap_binary", "bad_count.bin", struct.pack("<Q", 1 << 40) + b"\0" * 64)
    write("colmap_binary", "bad_model.bin", struct.pack("<Q", 1) + struct.pack("<IiQQ4d", 1, 42, 640, 480, 1, 2, 3, 4))


def colmap_text_seeds():
    write("colmap_text", "valid_cameras.txt",
          "# Camera list\n1 PINHOLE 640 480 500 510 320 240\n2 SIMPLE_PINHOLE 320 240 250 160 120\n"
          "3 OPENCV 640 480 500 500 320 240 0.1 0.01 0 0\n")
    write("colmap_text", "valid_images.txt",
          "# Image list\n1 1 0 0 0 0 0 4 1 img_a.jpg\n10.5 20.5 0 30.5 40.5 -1\n"
          "2 0.5 0.5 0.5 0.5 1 2 3 2 img_b.jpg\n\n")
    write("colmap_text", "valid_points3D.txt", "# 3D points\n0 1 2 3 10 20 30 0.5 1 0 2 5\n1 -1 0 5 255 0 128 0.25\n")
    write("colmap_text", "bad_model.txt", "1 FANCY_MODEL 640 480 1 2 3\n")
    write("colmap_text", "bad_numbers.txt", "1 PINHOLE 640 480 500 x 320 240\n")
    write("colmap_text", "valid_cameras_every_model.txt",
          "2 SIMPLE_RADIAL 640 480 500 320 240 -0.1\n3 RADIAL 640 480 500 320 240 -0.2 0.05\n"
          "4 FULL_OPENCV 640 480 500 500 320 240 -0.3 0.1 0.001 0 -0.02 0.05 0 0\n"
          "5 OPENCV_FISHEYE 640 480 300 300 320 240 0.05 -0.01 0.002 0\n6 FOV 640 480 400 400 320 240 0.9\n"
          "7 SIMPLE_RADIAL_FISHEYE 640 480 300 320 240 0.04\n8 RADIAL_FISHEYE 640 480 300 320 240 0.03 -0.005\n")
    # Image records without their POINTS2D line: the second record would be read as the first one's points.
    write("colmap_text", "bad_missing_points2d.txt",
          "1 1 0 0 0 0 0 4 1 a.jpg\n2 0.5 0.5 0.5 0.5 1 2 3 1 b.jpg\n\n")


def transforms_seeds():
    pose = "[[1, 0, 0, 0.5], [0, 0, -1, 4], [0, 1, 0, 1], [0, 0, 0, 1]]"
    write("transforms", "valid_angle.json",
          '{"camera_angle_x": 0.69, "w": 400, "h": 400, "frames": [{"file_path": "./train/r_0", '
          '"rotation": 0.01, "transform_matrix": %s}]}' % pose)
    write("transforms", "valid_intrinsics.json",
          '{"fl_x": 1000, "fl_y": 1001, "cx": 500, "cy": 300, "w": 1000, "h": 600, "k1": 0, "p1": 0, '
          '"camera_model": "OPENCV", "aabb_scale": 16, "frames": [{"file_path": "images/0001.jpg", '
          '"transform_matrix": %s}, {"file_path": "images/0002.jpg", "fl_x": 900, "w": 800, "h": 600, '
          '"transform_matrix": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]}]}' % pose)
    write("transforms", "valid_distortion.json",
          '{"fl_x": 10, "w": 8, "h": 6, "k1": 0.2, "frames": [{"file_path": "a", "transform_matrix": %s}]}' % pose)
    write("transforms", "valid_fisheye.json",
          '{"fl_x": 300, "w": 640, "h": 480, "is_fisheye": true, "k1": 0.05, "k2": -0.01, "frames": '
          '[{"file_path": "a", "transform_matrix": %s}, {"file_path": "b", "camera_model": "OPENCV_FISHEYE", '
          '"transform_matrix": %s}]}' % (pose, pose))
    write("transforms", "bad_fisheye_tangential.json",
          '{"fl_x": 10, "w": 8, "h": 6, "is_fisheye": true, "p1": 0.01, "frames": [{"file_path": "a", '
          '"transform_matrix": %s}]}' % pose)
    write("transforms", "bad_ftheta.json",
          '{"fl_x": 10, "w": 8, "h": 6, "ftheta_p0": 0.1, "frames": [{"file_path": "a", "transform_matrix": %s}]}'
          % pose)
    write("transforms", "bad_pose.json",
          '{"fl_x": 10, "w": 8, "h": 6, "frames": [{"file_path": "a", "transform_matrix": [[2, 0, 0, 0], '
          '[0, 2, 0, 0], [0, 0, 2, 0]]}]}')
    write("transforms", "bad_json.json", '{"frames": [')


def mesh_text_seeds():
    write("mesh_text", "valid_quad.obj",
          "# quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf 1/1/1 2/1/1 3//1 4\nv 2 0 0\nf -4 -1 -3\n")
    write("mesh_text", "valid_tetra.off",
          "OFF\n# tetrahedron\n4 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n")
    write("mesh_text", "valid_colored.off", "COFF 3 1 0\n0 0 0 255 0 0 255\n1 0 0 0 255 0 255\n0 1 0 0 0 255 255\n"
                                            "3 0 1 2 10 20 30\n")
    write("mesh_text", "bad_index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n")
    # Both parsers see every input: this one is a truncated OFF file and an OBJ face with unknown vertices.
    write("mesh_text", "bad_counts.off", "OFF\n1000000 1 0\nf 1 2 3\n")


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_file(width, height, depth, color_type, rows, extra=b"", interlace=0):
    """rows: the filtered scanline bytes (filter byte included) of all passes, already laid out."""
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra + png_chunk(b"IDAT", zlib.compress(rows)) +
            png_chunk(b"IEND", b""))


def pattern(x, y, c):
    return (37 * x + 91 * y + 53 * c + 17) % 256


def plain_rows(width, height, channels, bytes_per_sample=1):
    rows = b""
    for y in range(height):
        rows += b"\0"
        for x in range(width):
            for c in range(channels):
                v = pattern(x, y, c)
                rows += bytes([v] * bytes_per_sample) if bytes_per_sample == 1 else struct.pack(">H", v * 257 + c)
    return rows


def adam7_rows(width, height):
    """8-bit grey, Adam7 interlaced: each pass's rows, unfiltered."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    out = b""
    for x0, y0, dx, dy in passes:
        xs = list(range(x0, width, dx))
        if not xs:
            continue
        for y in range(y0, height, dy):
            out += b"\0" + bytes(pattern(x, y, 0) for x in xs)
    return out


def image_seeds():
    write("image", "valid_rgb.png", png_file(16, 12, 8, 2, plain_rows(16, 12, 3)))
    write("image", "valid_rgba16.png", png_file(5, 4, 16, 6, plain_rows(5, 4, 4, 2)))
    palette = png_chunk(b"PLTE", bytes(range(12))) + png_chunk(b"tRNS", bytes([0, 128]))
    rows = b"".join(b"\0" + bytes((x + y) % 4 for x in range(6)) for y in range(5))
    write("image", "valid_palette_trns.png", png_file(6, 5, 8, 3, rows, palette))
    write("image", "valid_grey_interlaced.png", png_file(9, 7, 8, 0, adam7_rows(9, 7), interlace=1))
    rgb = plain_rows(16, 12, 3)
    write("image", "bad_truncated.png", png_file(16, 12, 8, 2, rgb)[:-40])
    broken = bytearray(png_file(16, 12, 8, 2, rgb))
    broken[-20] ^= 0x01  # inside IDAT: its CRC no longer matches
    write("image", "bad_crc.png", bytes(broken))
    write("image", "bad_huge.png", png_file(100000, 100000, 8, 2, b"\0" * 16))
    # BMP: 24-bit, bottom-up, rows padded to 4 bytes.
    w, h = 7, 5
    pixels = b"".join(bytes(pattern(x, y, 2 - c) for x in range(w) for c in range(3)) + b"\0" * ((4 - 3 * w % 4) % 4)
                      for y in reversed(range(h)))
    header = struct.pack("<2sIHHI", b"BM", 54 + len(pixels), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    write("image", "valid_rgb.bmp", header + info + pixels)
    # TGA: uncompressed 32-bit BGRA, top-left origin.
    tga = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, 4, 3, 32, 0x28)
    tga += b"".join(bytes([pattern(x, y, 2), pattern(x, y, 1), pattern(x, y, 0), 255]) for y in range(3) for x in range(4))
    write("image", "valid_rgba.tga", tga)
    write("image", "bad_text.txt", "not an image at all\n")
    jpeg_seeds()


def jpeg_seeds():
    cjpeg = shutil.which("cjpeg")
    if not cjpeg:
        print("cjpeg not found (Debian: libjpeg-turbo-progs): JPEG seeds not written")
        return
    w, h = 24, 16
    ppm = b"P6\n%d %d\n255\n" % (w, h) + bytes(pattern(x, y, c) for y in range(h) for x in range(w) for c in range(3))

    def encode(*options):
        return subprocess.run([cjpeg, "-quality", "85", *options], input=ppm, stdout=subprocess.PIPE, check=True).stdout

    baseline = encode()
    write("image", "valid_baseline.jpg", baseline)
    write("image", "valid_progressive.jpg", encode("-progressive"))
    write("image", "valid_arithmetic.jpg", encode("-arithmetic"))
    write("image", "valid_grey.jpg", encode("-grayscale"))
    write("image", "bad_truncated.jpg", baseline[: len(baseline) * 2 // 3])
    # A Huffman table whose 16 code counts add up to more than the 256 symbols a table holds (stb_image 2022
    # wrote past its arrays on this; libjpeg rejects the table).
    counts = bytes([17] * 16)
    dht = b"\xff\xc4" + struct.pack(">H", 2 + 1 + 16 + 272) + b"\x00" + counts + bytes(272)
    write("image", "bad_huffman_counts.jpg", baseline[:2] + dht + baseline[2:])


if __name__ == "__main__":
    ply_seeds()
    colmap_binary_seeds()
    colmap_text_seeds()
    transforms_seeds()
    mesh_text_seeds()
    image_seeds()
