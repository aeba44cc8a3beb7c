"""testbed.labs.variant_file: a student's variant file reads back as the variant it was
written for, without the secret (the student's) and with it (the instructor's); with the
secret a changed file, or one made with another secret, is refused; without it a value out
of the lab's bounds or one that does not match the file's digest is refused; rosters and
file names."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from testbed.errors import UsageError
from testbed.labs import labs, secret
from testbed.labs.variant import VariantSpace, digest
from testbed.labs.variant_file import (
    file_name,
    handouts,
    named,
    of_student,
    read,
    roster,
    text,
)

SECRET, OTHER = b"s" * 32, b"t" * 32
LAB1, LAB6 = labs()[1], labs()[6]


def written(tmp_path: Path, student: str = "ada", lab=LAB1, key: bytes = SECRET) -> Path:
    path = tmp_path / file_name(lab.number, student)
    path.write_text(text(lab, of_student(lab, key, student), key))
    return path


@pytest.mark.parametrize("lab", [LAB1, labs()[4], LAB6])
@pytest.mark.parametrize("student", ["ada", 'Zoë "Z" O\'Neil'])
def test_a_variant_file_reads_back_with_and_without_the_secret(
        tmp_path: Path, lab, student: str) -> None:
    path = written(tmp_path, student, lab)
    want = of_student(lab, SECRET, student)
    assert read(path, lab, None) == want == read(path, lab, SECRET)
    assert named(path) == want.digest and want.digest in path.read_text()


def test_a_changed_variant_file_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path)
    v = read(path, LAB1, None)
    raw = path.read_text()
    sent = v.values["sent"]
    other = 3 if sent != 3 else 4
    changed = raw.replace(f"sent = {sent}\n", f"sent = {other}\n")
    # another sent with its digest made to match: only the signature tells
    forged_values = dict(v.values, sent=other)
    path.write_text(changed.replace(v.digest, digest(1, forged_values)))
    assert read(path, LAB1, None).values == forged_values  # the student's tools cannot tell
    with pytest.raises(UsageError, match="signature does not match"):
        read(path, LAB1, SECRET)
    # the digest not matching the values: refused without the secret too
    path.write_text(changed)
    with pytest.raises(UsageError, match="the file was changed"):
        read(path, LAB1, None)
    # a line after the signature
    path.write_text(raw + "# more\n")
    with pytest.raises(UsageError, match="signature does not match"):
        read(path, LAB1, SECRET)


def test_a_variant_file_of_another_secret_or_unsigned_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, key=OTHER)
    assert read(path, LAB1, None).student == "ada"
    with pytest.raises(UsageError, match="another instructor secret"):
        read(path, LAB1, SECRET)
    path.write_text(secret.unsigned(path.read_text(), secret.VARIANT_SIGNATURE))
    with pytest.raises(UsageError, match="signature does not match"):
        read(path, LAB1, SECRET)
    # a key's signature is no variant file's
    path.write_text(secret.sign(path.read_text(), SECRET))
    with pytest.raises(UsageError, match="signature does not match"):
        read(path, LAB1, SECRET)


@pytest.mark.parametrize(("body", "match"), [
    ("lab = 6\nstudent = \"a\"\n[values]\n", "variant of lab 6, not of lab 1"),
    ("lab = 1\n[values]\n", "no variant file"),
    ("lab = 1\nstudent = \"a\"\n", "no variant file"),
    ("lab = 1\nstudent = \"a\"\n[values]\ngroup = \"224.0.0.1\"\n", "group = '224.0.0.1' is"),
    ("lab = 1\nstudent = \"a\"\nvariant = \"x\"\n[values]\ngroup = \"239.1.1.1\"\n"
     "roles = [\"h0\", \"h1\", \"h2\", \"h3\"]\nsent = 5\nquery_interval_s = 2.0\n"
     "last_member_interval_s = 0.5\n", "its variant 'x' is not its values'"),
    ("lab = [", "not valid TOML"),
])
def test_a_bad_variant_file_is_one_message(tmp_path: Path, body: str, match: str) -> None:
    path = tmp_path / "v.toml"
    path.write_text(body)
    with pytest.raises(UsageError, match=match):
        read(path, LAB1, None)
    with pytest.raises(UsageError, match="cannot read"):
        read(tmp_path / "none.toml", LAB1, None)


def test_a_lab_without_variants_refuses_to_make_one() -> None:
    fixed = replace(labs()[5], variants=VariantSpace(why_none="its answers are fixed"))
    with pytest.raises(UsageError, match="lab 5 has no variants yet: its answers are fixed"):
        of_student(fixed, SECRET, "ada")
    assert handouts(fixed) is None and handouts(LAB1) is not None
    with pytest.raises(UsageError, match="lab 5 has no variants yet"):
        read(Path("any.toml"), fixed, None)


def test_a_roster_is_a_list_or_a_csvs_first_column(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("student,name\nada,Ada L\n\nbob, Bob\n carol ,\n")
    assert roster(path) == ["ada", "bob", "carol"]
    path.write_text("ada\nbob\nada\n")
    with pytest.raises(UsageError, match="names ada more than once"):
        roster(path)
    path.write_text("student\n\n")
    with pytest.raises(UsageError, match="names no student"):
        roster(path)
    with pytest.raises(UsageError, match="cannot read"):
        roster(tmp_path / "none.csv")


def test_file_names_hold_the_lab_and_a_safe_id() -> None:
    assert file_name(1, "ada") == "lab1-ada.toml"
    assert file_name(6, "../x y@z") == "lab6-.._x_y_z.toml"
    assert "/" not in file_name(1, "/etc/passwd")
