"""Python test and fixture parameters typed by pytest fixtures, as pytest documents them ("How
to use fixtures", "Fixtures reference", "Override fixtures"): a test's or a fixture's plain
parameter receives the value of the fixture of that name (what it returns, or for a generator
fixture what it yields), looked up in the test's class, its module, then the ``conftest.py``
files of its directory and its parents (the closest wins); ``@pytest.fixture(name=...)``
renames; a fixture requesting its own name gets the one further up. The fixture repository is
the docs' yield-fixture example (``emaillib``), with a sub-folder overriding fixtures. What is
not proven stays unresolved: a helper that is no test, a parameter with a default, a
parametrized name, a conftest fixture whose requested fixture differs below it."""

from __future__ import annotations

from pathlib import Path

from tests.codegraph_facts import build, calls

EMAILLIB = """class MailAdminClient:
    def create_user(self) -> "MailUser":
        return MailUser()

    def delete_user(self, user):
        pass


class MailUser:
    def __init__(self):
        self.inbox = []

    def send_email(self, email):
        pass

    def clear_mailbox(self):
        self.inbox.clear()


class Email:
    def seal(self):
        pass
"""

CONFTEST = """import pytest

from emaillib import Email, MailAdminClient


@pytest.fixture
def mail_admin():
    return MailAdminClient()


@pytest.fixture(name="email")
def _email():
    email = Email()
    return email


@pytest.fixture
def helper():
    return MailAdminClient()


@pytest.fixture
def inbox(helper):
    return helper


@pytest.fixture
def ping(pong):
    return pong


@pytest.fixture
def pong(ping):
    return ping
"""

TEST_EMAILLIB = """import pytest


@pytest.fixture
def sending_user(mail_admin):
    user = mail_admin.create_user()
    yield user
    mail_admin.delete_user(user)


def test_email_received(sending_user, email):
    sending_user.send_email(email)
    email.seal()


class TestMailbox:
    def test_clear(self, sending_user):
        sending_user.clear_mailbox()


def test_helper(helper):
    helper.create_user()


def helper_not_a_test(mail_admin):
    mail_admin.create_user()


def test_default(mail_admin=None):
    mail_admin.create_user()


@pytest.mark.parametrize("email", [None])
def test_parametrized(email):
    email.seal()


def test_inbox(inbox):
    inbox.create_user()


@pytest.mark.parametrize("kind", ["email"])
def test_kind(email, kind):
    email.seal()


def test_cycle(ping):
    ping.seal()
"""

SUB_CONFTEST = """import pytest

from emaillib import MailUser


@pytest.fixture
def mail_admin(mail_admin):
    return mail_admin


@pytest.fixture
def helper():
    return MailUser()
"""

SUB_TEST = """def test_closest(helper, mail_admin):
    helper.clear_mailbox()
    mail_admin.delete_user(None)
"""

FILES = {
    "emaillib.py": EMAILLIB,
    "tests/conftest.py": CONFTEST,
    "tests/test_emaillib.py": TEST_EMAILLIB,
    "tests/subfolder/conftest.py": SUB_CONFTEST,
    "tests/subfolder/test_other.py": SUB_TEST,
}


def test_fixture_parameters(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    lib = "emaillib.py"
    assert calls(graph, "tests/test_emaillib.py") == [
        (
            "sending_user",
            "mail_admin.create_user",
            6,
            lib,
            "MailAdminClient.create_user",
            0.8,
            "inferred",
        ),
        (
            "sending_user",
            "mail_admin.delete_user",
            8,
            lib,
            "MailAdminClient.delete_user",
            0.8,
            "inferred",
        ),
        (
            "test_email_received",
            "sending_user.send_email",
            12,
            lib,
            "MailUser.send_email",
            0.8,
            "inferred",
        ),
        ("test_email_received", "email.seal", 13, lib, "Email.seal", 0.8, "inferred"),
        (
            "TestMailbox.test_clear",
            "sending_user.clear_mailbox",
            18,
            lib,
            "MailUser.clear_mailbox",
            0.8,
            "inferred",
        ),
        (
            "test_helper",
            "helper.create_user",
            22,
            lib,
            "MailAdminClient.create_user",
            0.8,
            "inferred",
        ),
        ("helper_not_a_test", "mail_admin.create_user", 26, "", "", 0.0, "unresolved"),
        ("test_default", "mail_admin.create_user", 30, "", "", 0.0, "unresolved"),
        ("test_parametrized", "pytest.mark.parametrize", 33, "", "", 0.0, "external"),
        ("test_parametrized", "email.seal", 35, "", "", 0.0, "unresolved"),
        ("test_inbox", "inbox.create_user", 39, "", "", 0.0, "unresolved"),
        ("test_kind", "pytest.mark.parametrize", 42, "", "", 0.0, "external"),
        ("test_kind", "email.seal", 44, lib, "Email.seal", 0.8, "inferred"),
        ("test_cycle", "ping.seal", 48, "", "", 0.0, "unresolved"),
    ]
    assert [c for c in calls(graph, "tests/subfolder/test_other.py")] == [
        ("test_closest", "helper.clear_mailbox", 2, lib, "MailUser.clear_mailbox", 0.8, "inferred"),
        (
            "test_closest",
            "mail_admin.delete_user",
            3,
            lib,
            "MailAdminClient.delete_user",
            0.8,
            "inferred",
        ),
    ]


def test_conftest_edit_relinks_its_tests(tmp_path: Path) -> None:
    graph = build(tmp_path, FILES)
    (tmp_path / "tests/subfolder/conftest.py").write_text(
        SUB_CONFTEST.replace("return MailUser()", "return Email()")
    )
    graph.update(["tests/subfolder/conftest.py"])
    assert calls(graph, "tests/subfolder/test_other.py")[0] == (
        "test_closest",
        "helper.clear_mailbox",
        2,
        "",
        "",
        0.0,
        "unresolved",
    )
