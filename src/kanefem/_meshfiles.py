"""Mesh files from untrusted sources, checked before meshio reads them.

meshio trusts a file: it allocates what the file declares (a 100-byte Gmsh file
declaring 10^9 nodes asks for 29.8 GiB), ends the process on some damaged files
(``sys.exit``), parses XML with entities, and raises its own errors or IndexError on
others.  :func:`check` runs first and refuses, with a :class:`MeshFileError` naming the
file and what is wrong:

* a path that is not a regular file (a FIFO, a device, a folder) or is larger than
  MESH_MAX bytes;
* a format other than those whose declared sizes are checked here (Gmsh .msh 2.2 and 4.1,
  ASCII and binary; VTK legacy .vtk; VTU; Abaqus .inp): other formats meshio reads are
  refused by name (convert them with ``meshio convert`` to one of these);
* XML with a DOCTYPE or an ENTITY (billion laughs, external entities);
* declared counts larger than the file can hold: every count a format declares (Gmsh's
  $Nodes and $Elements, its binary blocks; VTK's POINTS, CELLS, CELL_TYPES; VTU's
  NumberOfPoints and NumberOfCells) times the fewest bytes one item takes in the file
  (its binary record, or 2 bytes for a number in ASCII) must fit the file's size (VTU's
  compressed data: its size times zlib's largest ratio, 1032; LZMA-compressed VTU refused);
* a VTK legacy file that is not an UNSTRUCTURED_GRID (structured grids declare their sizes
  as DIMENSIONS, and a body's mesh is unstructured);
* in text, an integer (a count or a tag, which meshio may turn into an array of that
  length) above INT_BOUND(size) = max(2^24, 64 x size).

Then meshio reads the file, and any exception it raises (also ``SystemExit``) becomes a
MeshFileError naming the file; not MemoryError (an allocation these checks did not bound
is a defect to see, and the fuzz looks for it) nor KeyboardInterrupt.
"""

from __future__ import annotations

import mmap
import os
import re
import stat
import struct

import numpy as np

from ._core import KanefemError

#: the largest mesh file read [bytes]
MESH_MAX = 4 << 30
#: zlib's largest compression ratio (a VTU's compressed blocks expand at most this much)
ZLIB_RATIO = 1032
#: meshio format names kanefem reads -> what the check does with them
FORMATS = {"gmsh": "gmsh", "gmsh22": "gmsh", "gmsh4": "gmsh", "gmsh40": "gmsh", "gmsh41": "gmsh",
           "vtk": "vtk", "vtu": "vtu", "abaqus": "abaqus"}
EXTENSIONS = {".msh": "gmsh", ".vtk": "vtk", ".vtu": "vtu", ".inp": "abaqus"}


class MeshFileError(KanefemError, ValueError):
    """A mesh file that cannot be read safely or correctly: the message names the file
    and what is wrong (a damaged or truncated file, a declared size larger than the
    file, XML entities, a format kanefem does not read)."""


def int_bound(size):
    """The largest integer a text mesh file of ``size`` bytes may hold (counts, tags)."""
    return max(1 << 24, 64 * size)


def _format(path, file_format):
    if file_format is not None:
        if not isinstance(file_format, str):
            raise TypeError(f"file_format must be a meshio format name (a string), got {file_format!r}")
        if file_format not in FORMATS:
            raise MeshFileError(f"file_format = {file_format!r}: kanefem reads {', '.join(sorted(FORMATS))} "
                                "(their declared sizes are checked before reading); convert other formats "
                                "with 'meshio convert'")
        return FORMATS[file_format]
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in EXTENSIONS:
        raise MeshFileError(f"{path}: the extension {ext!r} is not one of the mesh formats kanefem reads "
                            f"({', '.join(EXTENSIONS)}); give file_format=, or convert the file with "
                            "'meshio convert'")
    return EXTENSIONS[ext]


def _fail(path, what):
    raise MeshFileError(f"{path}: {what}")


#: an integer token of 8 or more digits (7 digits are below int_bound's floor, 2^24): not
#: digits of a float (after or before a '.') or of a word
_INT = re.compile(rb"(?<![\w.])\d{8,}(?![\w.])")


def _text_integers(path, buf, size):
    """No integer token of the text above int_bound(size)."""
    bound = int_bound(size)
    for m in _INT.finditer(buf):
        if int(m.group()) > bound:
            _fail(path, f"the integer {m.group().decode()[:40]} at byte {m.start()} is larger than a "
                        f"file of {size} bytes can describe (counts and tags are at most {bound})")


def _count(path, name, n, item_bytes, size, factor=1):
    if n < 0 or n * item_bytes > size * factor:
        _fail(path, f"declares {n} {name}, which needs at least {n * item_bytes} bytes, but the file has "
                    f"{size}" + (f" (x {factor}, compressed)" if factor > 1 else ""))


def _gmsh(path, buf, size):
    m = re.search(rb"\$MeshFormat\s+(\S+)\s+(\S+)\s+(\S+)", buf[:4096])
    if not m:
        _fail(path, "not a Gmsh file (no $MeshFormat header)")
    version, binary = m.group(1), m.group(2) == b"1"
    if version not in (b"2.2", b"4.1"):
        _fail(path, f"Gmsh format {version.decode(errors='replace')[:20]!r}: kanefem reads versions 2.2 and 4.1")
    v4 = version == b"4.1"
    for section, unit in ((b"Nodes", 28 if not v4 else 32), (b"Elements", 8 if not v4 else 16)):
        for s in re.finditer(rb"\$" + section + rb"[ \t]*\r?\n", buf):
            start = s.end()
            if v4 and binary:
                if start + 32 > size:
                    _fail(path, f"truncated in ${section.decode()}")
                blocks, n, lo, hi = struct.unpack_from("<4Q", buf, start)
                _count(path, f"{section.decode().lower()} blocks", blocks, 24, size)
                _count(path, section.decode().lower(), n, unit, size)
                if hi > int_bound(size) or lo > hi + 1:
                    _fail(path, f"${section.decode()} declares tags {lo}..{hi}: beyond what a file of {size} bytes "
                                f"can describe (at most {int_bound(size)})")
                if section == b"Nodes":
                    _gmsh4_node_blocks(path, buf, start + 32, blocks, size)
                else:
                    _gmsh_element_blocks(path, buf, start + 32, blocks, size, v4=True)
            else:
                first, _, rest = buf[start:start + 200].partition(b"\n")
                line = first.split()
                try:
                    n = int(line[1] if v4 else line[0])
                except (IndexError, ValueError):
                    _fail(path, f"${section.decode()} has no count")
                _count(path, section.decode().lower(), n, unit if binary else 4, size)
                if binary and section == b"Elements":
                    _gmsh_element_blocks(path, buf, start + len(first) + 1, n, size, v4=False)
    if buf.find(b"\n$Periodic") >= 0:
        _fail(path, "holds a $Periodic section, which kanefem does not read (remove it)")
    for m in re.finditer(rb"\n\$(NodeData|ElementData|ElementNodeData)[ \t]*\r?\n", buf):
        _gmsh_data_header(path, buf, m, size, binary)


def _gmsh_element_blocks(path, buf, pos, total, size, v4):
    """Binary Gmsh element blocks (2.2: groups of one type; 4.1: entity blocks): every
    block's count within the file, before meshio allocates it."""
    from meshio._common import num_nodes_per_cell
    from meshio.gmsh.common import _gmsh_to_meshio_type

    head, item = (20, 8) if v4 else (12, 4)
    done = 0
    while done < total:
        if pos + head > size:
            _fail(path, "truncated in $Elements")
        if v4:
            _, _, kind, n = struct.unpack_from("<3iQ", buf, pos)
            ntags = 0
        else:
            kind, n, ntags = struct.unpack_from("<3i", buf, pos)
        if kind not in _gmsh_to_meshio_type:
            _fail(path, f"$Elements has the unknown element type {kind}")
        if n <= 0 or not 0 <= ntags <= 64:
            _fail(path, f"$Elements has a block of {n} elements with {ntags} tags")
        per = item * (1 + ntags + num_nodes_per_cell[_gmsh_to_meshio_type[kind]])
        _count(path, "elements in a block", n, per, size - pos - head)
        pos += head + n * per
        done += 1 if v4 else n


def _gmsh_data_header(path, buf, m, size, binary):
    """A $NodeData/$ElementData header: tag counts small, components x entities within the file."""
    lines = buf[m.end():m.end() + 8192].split(b"\n")
    try:
        k = int(lines[0])
        ok = 0 <= k <= 64
        k += 1
        r = int(lines[k]) if ok else -1
        ok = ok and 0 <= r <= 64
        k += 1 + r
        i = int(lines[k]) if ok else -1
        ok = ok and 3 <= i <= 64
        ints = [int(lines[k + 1 + j]) for j in range(i)] if ok else []
    except (IndexError, ValueError):
        ok = False
    if not ok:
        _fail(path, f"${m.group(1).decode()} has a damaged header")
    comps, items = ints[1], ints[2]
    if not 1 <= comps <= 64:
        _fail(path, f"${m.group(1).decode()} declares {comps} components (1 to 64)")
    _count(path, f"${m.group(1).decode()} entries", items, (4 + 8 * comps) if binary else 2 * (1 + comps), size)


def _gmsh4_node_blocks(path, buf, pos, blocks, size):
    """Binary Gmsh 4.1 $Nodes: every block's count within the file, its tags bounded."""
    bound = int_bound(size)
    for _ in range(blocks):
        if pos + 20 > size:
            _fail(path, "truncated in $Nodes")
        _, _, parametric, n = struct.unpack_from("<3iQ", buf, pos)
        pos += 20
        if parametric != 0:
            _fail(path, "parametric nodes are not read")
        _count(path, "nodes in a block", n, 32, size - pos)
        if n and int(np.frombuffer(buf, dtype="<u8", count=n, offset=pos).max()) > bound:
            _fail(path, f"a node tag in $Nodes is above {bound}, more than a file of {size} bytes can describe")
        pos += 32 * n


_VTK_COUNTS = [(rb"POINTS\s+(\d+)\s+(\w+)", "points", 3), (rb"CELLS\s+(\d+)\s+(\d+)", "cells", 1),
               (rb"CELL_TYPES\s+(\d+)", "cell types", 1), (rb"POINT_DATA\s+(\d+)", "point data", 1),
               (rb"CELL_DATA\s+(\d+)", "cell data", 1), (rb"(?:SCALARS|FIELD)\s+\S+\s+(\d+)", "components", 0)]


_VTK_TYPES = (rb"(?:bit|unsigned_char|char|unsigned_short|short|unsigned_int|int|unsigned_long|long|float|double"
              rb"|vtkIdType|vtktypeint64|vtktypeuint64)")


def _vtk(path, buf, size):
    binary = re.search(rb"^\s*BINARY\s*$", buf[:1024], re.M) is not None
    # the keyword lines: the data are numbers (ASCII) or bytes after them (binary)
    keys = b"\n".join(re.findall(rb"(?:^|\n)([A-Za-z_][^\n]{0,200})", buf))
    m = re.search(rb"^DATASET\s+(\S+)", keys, re.M)
    if m is None or m.group(1).upper() != b"UNSTRUCTURED_GRID":
        _fail(path, "not a VTK UNSTRUCTURED_GRID (a body's mesh is unstructured; "
                    f"DATASET is {m.group(1)[:30].decode(errors='replace') if m else 'missing'})")
    # FIELD arrays: NAME COMPONENTS TUPLES TYPE; lookup tables and colour scalars: NAME COUNT
    for m in re.finditer(rb"^\S+[ \t]+(\d+)[ \t]+(\d+)[ \t]+" + _VTK_TYPES + rb"\s*$", keys, re.M | re.I):
        _count(path, "field values", int(m.group(1)) * int(m.group(2)), 1 if binary else 2, size)
    for m in re.finditer(rb"^(?:LOOKUP_TABLE|COLOR_SCALARS)[ \t]+\S+[ \t]+(\d+)", keys, re.M):
        _count(path, "table entries", int(m.group(1)), 1 if binary else 2, size)
    for pattern, name, per in _VTK_COUNTS:
        for m in re.finditer(pattern, keys):
            n = int(m.group(1))
            if per == 0:
                if n > 64:
                    _fail(path, f"declares {n} components (at most 64)")
                continue
            _count(path, name, n, per * (4 if binary else 2), size)
            if name == "cells":
                _count(path, "cell connectivity entries", int(m.group(2)), 4 if binary else 2, size)


def _vtu(path, buf, size):
    if re.search(rb"vtkLZMADataCompressor", buf):
        _fail(path, "LZMA-compressed data is not read (its expansion is not bounded by zlib's ratio): "
                    "write the VTU with zlib compression or none")
    factor = ZLIB_RATIO if re.search(rb"compressor\s*=", buf) else 1
    for attr, name in ((b"NumberOfPoints", "points"), (b"NumberOfCells", "cells"),
                       (b"NumberOfComponents", "components"), (b"header_type", None)):
        for m in re.finditer(attr + rb"\s*=\s*[\"']\s*([^\"']*)[\"']", buf):
            if name is None:
                continue
            try:
                n = int(m.group(1))
            except ValueError:
                _fail(path, f"{attr.decode()}={m.group(1)[:20]!r} is not an integer")
            if name == "components":
                if not 0 <= n <= 64:
                    _fail(path, f"declares {n} components (at most 64)")
                continue
            _count(path, name, n, 1, size, factor)


def check(path, file_format=None):
    """Refuse a mesh file that cannot be read safely (see the module docstring); return
    meshio's format name to read it with."""
    kind = _format(path, file_format)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise MeshFileError(f"{path}: cannot be opened ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            _fail(path, "not a regular file (a folder, a FIFO or a device)")
        size = st.st_size
        if size == 0:
            _fail(path, "is empty")
        if size > MESH_MAX:
            _fail(path, f"{size} bytes is more than a mesh file may have ({MESH_MAX})")
        buf = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)
    try:
        if kind == "vtu" and re.search(rb"<!\s*(DOCTYPE|ENTITY)", buf, re.I):  # the XML format
            _fail(path, "holds an XML DOCTYPE or ENTITY declaration (refused: entity expansion, "
                        "external entities)")
        binary = {"gmsh": lambda: re.search(rb"\$MeshFormat\s+\S+\s+1", buf[:4096]) is not None,
                  "vtk": lambda: re.search(rb"^\s*BINARY\s*$", buf[:1024], re.M) is not None,
                  "vtu": lambda: True, "abaqus": lambda: False}[kind]()
        {"gmsh": _gmsh, "vtk": _vtk, "vtu": _vtu, "abaqus": lambda *a: None}[kind](path, buf, size)
        if not binary:  # base64 or raw data would look like numbers
            _text_integers(path, buf, size)
    finally:
        buf.close()
    return kind
