"""The type stubs shipped in the wheel (`fatnet.pyi`) name every public function, class,
method and property of the compiled module, and the docstrings come from the Rust docs."""

import ast
import pathlib
import types

import fatnet

STUB = pathlib.Path(__file__).resolve().parents[1] / "fatnet.pyi"


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return top, members


def test_every_public_name_is_in_the_stub():
    top, members = stub_names()
    # (maturin's `__init__.py` re-exports the compiled submodule `fatnet.fatnet`.)
    public = {n for n, v in vars(fatnet).items()
              if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert public <= top, public - top
    for name, cls in vars(fatnet).items():
        if isinstance(cls, type) and not issubclass(cls, BaseException):
            mine = {m for m in vars(cls) if not m.startswith("_")}
            assert mine <= members[name], (name, mine - members[name])


def test_docstrings_come_from_the_rust_docs():
    assert "fatnet load" in fatnet.load.__doc__
    assert "fatnet simulate" in fatnet.simulate.__doc__
    assert fatnet.Topology.__doc__.startswith("A topology built from its spec")
    assert "exact" in fatnet.LoadResult.load_factor.__doc__
