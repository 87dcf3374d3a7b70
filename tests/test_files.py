"""Untrusted files (issue 17, items 1-4): names that become paths, mesh files, damaged
sweep stores, TOML configurations.  Each test failed before its fix (the defect it
reproduces is in its docstring)."""

import json
import os
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import kanefem
from kanefem import Mesh, MeshFileError, StoreError, studies
from kanefem._io import inside, read_toml, safe_name, write_csv, write_toml
from kanefem.sweep import DamagedPointError

meshio = pytest.importorskip("meshio")
posix_only = pytest.mark.skipif(os.name != "posix", reason="symbolic links, FIFOs and /dev/zero")


# ---------------------------------------------------------------- names become paths


@pytest.mark.parametrize("name", ["x/../../../victim", "..", ".", "", "a\\..\\b", "nul\x00x", "CON",
                                  "con.csv", "\n\t", "é" * 300, ".hidden", "a b", "lpt1"])
def test_safe_name_is_one_plain_component(name):
    s = safe_name(name)
    assert s and len(s) <= 100
    assert set(s) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
    assert not s.startswith(".") and s.split(".")[0].upper() not in {"CON", "NUL", "LPT1"}
    assert safe_name(name) == s  # deterministic


def test_safe_name_keeps_plain_names_and_separates_collisions():
    assert safe_name("rod") == "rod"
    # two names that sanitise alike stay apart (the digest), and one folder's names are unique
    assert safe_name("a/b") != safe_name("a:b")
    used = set()
    assert [safe_name(n, used) for n in ("Rod", "rod", "rod")] == ["Rod", "rod_2", "rod_3"]


def test_inside_refuses_separators_and_links_out(tmp_path):
    (tmp_path / "out").mkdir()
    for bad in ("../x.csv", "a/b.csv", "..", "x\x00.csv"):
        with pytest.raises(ValueError, match="one plain name"):
            inside(tmp_path / "out", bad)
    if os.name == "posix":
        os.symlink(tmp_path / "victim.csv", tmp_path / "out" / "planted.csv")
        with pytest.raises(ValueError, match="outside the output folder"):
            write_csv(tmp_path / "out", "planted.csv", ["a"], [[1]])
        assert not (tmp_path / "victim.csv").exists()


def test_mechanism_link_name_never_becomes_a_path(tmp_path):
    """Before: a link named x/../../victim wrote eigenvalues_x/../../victim.csv, outside
    --out (anywhere the user can write), then failed with a misleading message."""
    text = kanefem.mechanism.example("slider_crank").read_text()
    hostile = "x/../../victim"
    (tmp_path / "m.toml").write_text(text.replace('"rod"', json.dumps(hostile)))
    env = {**os.environ, "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, "-m", "kanefem", "mechanism", str(tmp_path / "m.toml"), "--out",
                        str(tmp_path / "run" / "o"), "--points", "6", "--revolutions", "0.05", "--modes", "1"],
                       capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.toml", "run"]  # nothing written beside
    names = os.listdir(tmp_path / "run" / "o")
    eig = [n for n in names if n.startswith("eigenvalues_")]
    assert eig == [f"eigenvalues_{safe_name(hostile)}.csv"] and "/" not in eig[0]


def test_parent_that_is_a_file_is_named_in_one_line(tmp_path, capsys):
    """Before: a raw FileExistsError ('[Errno 17] File exists') without saying which part."""
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError, match="is a file, not a folder") as info:
        write_toml(tmp_path / "f" / "sub" / "p.toml", {"a": {"x": 1}})
    assert str(tmp_path / "f") in str(info.value) and "\n" not in str(info.value)
    from kanefem.__main__ import main

    for out in (tmp_path / "f" / "o", tmp_path / "f" / "a" / "o"):  # the command line's --out
        with pytest.raises(SystemExit):
            main(["windpump", "--out", str(out), "--points", "12", "--revolutions", "0.1", "--no-plots"])
        err = capsys.readouterr().err.strip()
        assert f"{str(tmp_path / 'f')!r} is a file, not a folder" in err and "\n" not in err
    with pytest.raises(StoreError, match="is a file, not a folder"):
        kanefem.sweep(studies.beam_eigenvalues, {"omega": [0.0]}, store=tmp_path / "f" / "s", progress=False)


@posix_only
def test_planted_lock_link_is_not_followed(tmp_path):
    """Before: store/.lock, a symbolic link planted there, was opened with 'a+', creating
    an empty file at its target."""
    store = tmp_path / "s"
    store.mkdir()
    os.symlink(tmp_path / "target", store / ".lock")
    with pytest.raises(StoreError, match="symbolic link"):
        kanefem.sweep(studies.beam_eigenvalues, {"omega": [0.0]}, store=store, progress=False)
    assert not (tmp_path / "target").exists()


@posix_only
def test_output_folder_with_a_planted_fifo_manifest_is_refused_not_read(tmp_path):
    """Before: a FIFO named manifest.json in --out blocked the run for ever (open + read)."""
    from kanefem._io import OutputSet

    out = tmp_path / "o"
    out.mkdir()
    os.mkfifo(out / "manifest.json")
    with pytest.raises(FileExistsError, match="no kanefem manifest.json"):
        with OutputSet(out, {"kanefem": "x"}):
            pass


# ---------------------------------------------------------------- TOML files


def test_toml_readers_refuse_what_is_not_a_small_text_file(tmp_path):
    """Before: a FIFO blocked from_toml for ever, /dev/zero allocated until MemoryError, a
    binary file raised UnicodeDecodeError without the file's name."""
    (tmp_path / "bin.toml").write_bytes(b"l1 = 0.1\n\xff\xfe")
    (tmp_path / "big.toml").write_bytes(b"#" * (17 << 20))
    (tmp_path / "nul.toml").write_text('[mechanism]\nname = "a\\u0000b"\n')
    cases = {"bin.toml": "not a text", "big.toml": "more than", "nul.toml": "NUL"}
    if os.name == "posix":
        os.mkfifo(tmp_path / "fifo.toml")
        cases["fifo.toml"] = "a FIFO"
    for reader in (kanefem.WindPump.from_toml, kanefem.Mechanism.from_toml, read_toml):
        for name, what in cases.items():
            with pytest.raises(ValueError, match=what) as info:
                reader(tmp_path / name)
            assert str(tmp_path / name) in str(info.value)
        if os.path.exists("/dev/zero"):
            with pytest.raises(ValueError, match="a device"):
                reader("/dev/zero")


def test_nul_is_refused_when_written_to_toml(tmp_path):
    """Before: a name with a NUL was written, and the file could not be read back."""
    m = kanefem.mechanism.slider_crank(elements=2)
    tables = m.to_dict()
    tables["mechanism"]["name"] = "a\x00b"
    with pytest.raises(ValueError, match="NUL"):
        write_toml(tmp_path / "x.toml", {"mechanism": tables["mechanism"]})
    assert not (tmp_path / "x.toml").exists()
    # other control characters are escaped and read back as they were
    path = write_toml(tmp_path / "y.toml", {"t": {"name": "a\x01\x7f\"\\\tb\n"}})
    assert read_toml(path) == {"t": {"name": "a\x01\x7f\"\\\tb\n"}}


# ---------------------------------------------------------------- mesh files


def _mesh_files(folder):
    m = Mesh.box(0.2, 0.1, 0.05, 2, 1, 1, cell="tetra")
    out = {}
    for name, fmt, binary in (("a.msh", "gmsh22", False), ("b.msh", "gmsh22", True), ("c.msh", "gmsh", False),
                              ("d.msh", "gmsh", True), ("e.vtk", "vtk", False), ("f.vtk", "vtk", True),
                              ("g.vtu", "vtu", False), ("h.vtu", "vtu", True), ("i.inp", "abaqus", False)):
        kw = {} if fmt == "abaqus" else {"binary": binary}
        meshio.write(folder / name, m.to_meshio(), file_format=fmt, **kw)
        out[name] = folder / name
    return m, out


def test_every_format_read_round_trips(tmp_path):
    m, files = _mesh_files(tmp_path)
    for path in files.values():
        back = Mesh.read(path)
        np.testing.assert_allclose(back.nodes, m.nodes, rtol=0, atol=1e-15)
        assert np.array_equal(back.cells, m.cells)


def test_damaged_mesh_files_raise_mesh_file_error_naming_the_file(tmp_path):
    """Before: meshio's sys.exit(1) (a SystemExit: a notebook's kernel dies), ReadError,
    IndexError or reshape errors, none naming the file.  Every format, truncated at several
    places and with bytes flipped: a mesh or a MeshFileError/ValueError naming the file."""
    _, files = _mesh_files(tmp_path)
    rng = np.random.default_rng(17)
    outcomes = {"read": 0, "refused": 0}
    for name, path in files.items():
        data = path.read_bytes()
        variants = [data[:k] for k in (0, 1, 10, len(data) // 3, len(data) // 2, len(data) - 5)]
        for _ in range(8):
            b = bytearray(data)
            for i in rng.integers(0, len(b), 3):
                b[i] = int(rng.integers(0, 256))
            variants.append(bytes(b))
        for k, v in enumerate(variants):
            bad = tmp_path / f"bad{k}_{name}"
            bad.write_bytes(v)
            try:
                Mesh.read(bad)
                outcomes["read"] += 1
            except ValueError as exc:  # MeshFileError is one
                assert str(bad) in str(exc), exc
                outcomes["refused"] += 1
    assert outcomes["refused"] >= 9 * 6  # every truncation of every format at least


@pytest.mark.parametrize("text,what", [
    (b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1000000000\n1 0 0 0\n$EndNodes\n", "1000000000 nodes"),
    (b"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1000000000 1 1000000000\n$EndNodes\n", "1000000000 nodes"),
    (b"$MeshFormat\n2.2 1 8\n\x01\x00\x00\x00\n$EndMeshFormat\n$Nodes\n999999999\n", "999999999 nodes"),
    (b"$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n$EndNodes\n$Elements\n10000000000\n",
     "10000000000 elements"),
    (b"# vtk DataFile Version 4.2\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 1000000000 double\n0 0 0\n",
     "1000000000 points"),
    (b'<?xml version="1.0"?>\n<VTKFile type="UnstructuredGrid"><UnstructuredGrid><Piece NumberOfPoints='
     b'"1000000000" NumberOfCells="1"></Piece></UnstructuredGrid></VTKFile>\n', "1000000000 points"),
    (b"*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D4\n99999999999999, 1, 1, 1, 1\n", "99999999999999"),
    (b"# vtk DataFile Version 4.2\nx\nBINARY\nDATASET STRUCTURED_POINTS\nDIMENSIONS 100000 100000 100000\n",
     "UNSTRUCTURED_GRID"),
    (b"# vtk DataFile Version 4.2\nx\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 1 double\n" + b"\0" * 24
     + b"\nFIELD FieldData 1\nf 100000 100000 double\n", "10000000000 field values"),
    (b'<?xml version="1.0"?>\n<VTKFile type="UnstructuredGrid" compressor="vtkLZMADataCompressor">\n',
     "LZMA"),
])
def test_declared_sizes_are_checked_against_the_file_size(tmp_path, text, what):
    """Before: a 100-byte Gmsh file declaring 10^9 nodes asked for 29.8 GiB."""
    ext = {b"$": ".msh", b"#": ".vtk", b"<": ".vtu", b"*": ".inp"}[text[:1]]
    path = tmp_path / ("x" + ext)
    path.write_bytes(text)
    with pytest.raises(MeshFileError, match=what) as info:
        Mesh.read(path)
    assert str(path) in str(info.value)


def test_binary_gmsh4_block_counts_and_tags_are_checked(tmp_path):
    _, files = _mesh_files(tmp_path)
    data = files["d.msh"].read_bytes()
    start = data.index(b"$Nodes\n") + len(b"$Nodes\n")
    blocks = struct.unpack_from("<Q", data, start)[0]
    assert blocks >= 1
    # the first block's node count, then its first tag
    lying = bytearray(data)
    struct.pack_into("<Q", lying, start + 32 + 12, 2**40)
    (tmp_path / "n.msh").write_bytes(bytes(lying))
    with pytest.raises(MeshFileError, match="nodes in a block"):
        Mesh.read(tmp_path / "n.msh")
    lying = bytearray(data)
    struct.pack_into("<Q", lying, start + 32 + 20, 2**50)
    (tmp_path / "t.msh").write_bytes(bytes(lying))
    with pytest.raises(MeshFileError, match="node tag"):
        Mesh.read(tmp_path / "t.msh")


@pytest.mark.parametrize("doc", [
    b'<?xml version="1.0"?>\n<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>\n'
    b"<VTKFile>&b;</VTKFile>",
    b'<?xml version="1.0"?>\n<!DOCTYPE l [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<VTKFile>&x;</VTKFile>',
])
def test_xml_entities_are_refused(tmp_path, doc):
    """Billion laughs and XXE: refused before any XML parser sees the file."""
    (tmp_path / "x.vtu").write_bytes(doc)
    with pytest.raises(MeshFileError, match="DOCTYPE or ENTITY"):
        Mesh.read(tmp_path / "x.vtu")


def test_unsupported_formats_and_special_files_are_refused(tmp_path):
    (tmp_path / "x.stl").write_text("solid x\nendsolid x\n")
    with pytest.raises(MeshFileError, match="convert"):
        Mesh.read(tmp_path / "x.stl")
    with pytest.raises(MeshFileError, match="file_format"):
        Mesh.read(tmp_path / "x.stl", file_format="stl")
    with pytest.raises(MeshFileError, match="not a regular file"):
        Mesh.read(tmp_path, file_format="gmsh")
    if os.name == "posix":
        os.mkfifo(tmp_path / "f.msh")
        with pytest.raises(MeshFileError, match="not a regular file"):
            Mesh.read(tmp_path / "f.msh")  # before: blocked for ever


# ---------------------------------------------------------------- sweep stores


def _store(tmp_path):
    store = tmp_path / "s"
    res = kanefem.sweep(studies.beam_eigenvalues, {"omega": [0.0, 10.0]}, store=store, progress=False)
    return store, res, sorted(store.glob("*.npz"))


def _rerun(store, **kw):
    return kanefem.sweep(studies.beam_eigenvalues, {"omega": [0.0, 10.0]}, store=store, progress=False, **kw)


def _lying_header(data):
    """The point with eigenvalues' NPY header declaring 2^30 doubles."""
    z = zipfile.ZipFile(__import__("io").BytesIO(data))
    members = {i.filename: z.read(i) for i in z.infolist()}
    a = members["eigenvalues.npy"]
    members["eigenvalues.npy"] = a.replace(b"(4,)", b"(1073741824,)".ljust(4)[:len(b"(1073741824,)")], 1)
    out = __import__("io").BytesIO()
    with zipfile.ZipFile(out, "w") as w:
        for n, b in members.items():
            w.writestr(n, b)
    return out.getvalue()


def _point(**arrays):
    out = __import__("io").BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


DAMAGES = {
    "truncated": lambda d: d[: len(d) // 2],
    "empty": lambda d: b"",
    "bit-flipped": lambda d: d[:300] + bytes([d[300] ^ 0x10]) + d[301:],
    "lying header": _lying_header,
    "params not JSON": lambda d: _point(eigenvalues=np.zeros(4), __params__=np.array("{oops"),
                                        __study__=np.array("s"), __version__=np.array("1"),
                                        __seconds__=np.array(1.0)),
    "params not an object": lambda d: _point(eigenvalues=np.zeros(4), __params__=np.array("[1, 2]"),
                                             __study__=np.array("s"), __version__=np.array("1"),
                                             __seconds__=np.array(1.0)),
    "params of the wrong shape": lambda d: _point(eigenvalues=np.zeros(4), __params__=np.array(["{}", "{}"]),
                                                  __study__=np.array("s"), __version__=np.array("1"),
                                                  __seconds__=np.array(1.0)),
    "seconds a string": lambda d: _point(eigenvalues=np.zeros(4), __params__=np.array("{}"),
                                         __study__=np.array("s"), __version__=np.array("1"),
                                         __seconds__=np.array("x")),
    "object dtype header": lambda d: d.replace(b"'descr': '<f8'", b"'descr': '|O' ", 1),
    "not a zip": lambda d: b"PK\x03\x04" + b"\x00" * 1000,
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_damaged_point_raises_store_error_naming_the_file(tmp_path, damage):
    """Before: BadZipFile, EOFError, JSONDecodeError, TypeError without the file, an 8 GiB
    allocation for a 1 KB point declaring 2^30 doubles, a point of the wrong kind accepted."""
    store, res, files = _store(tmp_path)
    good = files[0].read_bytes()
    files[0].write_bytes(DAMAGES[damage](good))
    with pytest.raises(DamagedPointError) as info:
        _rerun(store)
    assert isinstance(info.value, StoreError) and isinstance(info.value, ValueError)
    assert str(files[0]) in str(info.value)
    # recompute: the damaged file kept aside, the point computed again, the same numbers
    again = _rerun(store, damaged="recompute")
    np.testing.assert_array_equal(again.stack("eigenvalues"), res.stack("eigenvalues"))
    aside = files[0].with_name(files[0].name + ".damaged")
    assert aside.read_bytes() == DAMAGES[damage](good)  # nothing a user computed is lost
    assert sum(i["stored"] for i in again.info) == 1


@posix_only
def test_point_that_is_a_symlink_is_refused(tmp_path):
    store, _, files = _store(tmp_path)
    os.replace(files[0], tmp_path / "elsewhere.npz")
    os.symlink("/dev/zero", files[0])
    with pytest.raises(DamagedPointError, match="not a regular file"):
        _rerun(store)


@pytest.mark.parametrize("text", [b"", b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_damaged_manifest_raises_store_error_naming_it(tmp_path, text):
    store, _, _ = _store(tmp_path)
    (store / "sweep.json").write_bytes(text)
    with pytest.raises(StoreError, match="sweep.json"):
        _rerun(store)


def test_command_line_recomputes_damaged_points(tmp_path, capsys):
    """--sweep on a store with a truncated point: stops naming the file, or with
    --recompute-damaged moves it aside and computes it again (the same table)."""
    from kanefem.__main__ import main

    store = tmp_path / "points"
    argv = ["windpump", "--sweep", "rpm=120,140", "--points", "12", "--store", str(store), "--no-plots"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    point = sorted(store.glob("*.npz"))[0]
    point.write_bytes(point.read_bytes()[:100])
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main([*argv, "--out", str(tmp_path / "b")])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert str(point) in err and "--recompute-damaged" in err and "\n" not in err
    assert main([*argv, "--out", str(tmp_path / "c"), "--recompute-damaged"]) == 0
    assert "1 read from the store, 1 computed" in capsys.readouterr().out
    assert (tmp_path / "c" / "sweep.csv").read_bytes() == (tmp_path / "a" / "sweep.csv").read_bytes()
    assert point.with_name(point.name + ".damaged").stat().st_size == 100


def test_gmsh_element_blocks_and_data_headers_are_checked(tmp_path):
    """Binary element blocks (2.2 and 4.1) and $NodeData headers declare their own
    counts, read by meshio into arrays of that size: each is checked against the file."""
    m = Mesh.box(0.2, 0.1, 0.05, 2, 1, 1, cell="tetra")
    data = {"u": np.arange(3.0 * m.n_nodes).reshape(-1, 3)}
    for fmt in ("gmsh22", "gmsh"):
        for binary in (False, True):
            path = tmp_path / f"{fmt}{binary}.msh"
            meshio.write(path, m.to_meshio(point_data=data), file_format=fmt, binary=binary)
            if binary:  # (meshio 5.3 does not read back its own ASCII $NodeData under NumPy 2)
                assert Mesh.read(path).n_nodes == m.n_nodes  # with its $NodeData
            text = path.read_bytes()
            k = text.index(b"$NodeData\n")
            lying = text[:k] + text[k:].replace(f"\n{m.n_nodes}\n".encode(), b"\n900000000\n", 1)
            (tmp_path / "lie.msh").write_bytes(lying)
            with pytest.raises(MeshFileError, match="NodeData entries"):
                Mesh.read(tmp_path / "lie.msh")
            if binary:
                at = text.index(b"$Elements\n") + len(b"$Elements\n")
                at = text.index(b"\n", at) + 1 + 4 if fmt == "gmsh22" else at + 32 + 12
                lying = bytearray(text)
                struct.pack_into("<i" if fmt == "gmsh22" else "<Q", lying, at, 2**30)
                (tmp_path / "lie.msh").write_bytes(bytes(lying))
                with pytest.raises(MeshFileError, match="elements in a block"):
                    Mesh.read(tmp_path / "lie.msh")
