"""An SMTP server on loopback for tests/it/email.rs: Debian's aiosmtpd with STARTTLS required,
AUTH (PLAIN or LOGIN) required over TLS with one user and password, and a list of recipients it
refuses as a real server does (550, naming the address). Each message it takes is written to
--dir as NNN.eml and NNN.json: the envelope, the headers, the text and HTML parts, and each
attachment's name, type, size and sha256, read back with Python's own e-mail parser.

    python3 smtp_server.py --port P --cert cert.pem --key key.pem --user U --password W \
        --refuse recusado@example.com --dir received/

Prints `ready` once it listens; runs until killed.
"""

import argparse
import hashlib
import json
import ssl
import sys
import threading
from email import policy
from email.parser import BytesParser
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Handler:
    def __init__(self, folder: Path, refused: set):
        self.folder = folder
        self.refused = refused
        self.count = 0
        self.lock = threading.Lock()

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower() in self.refused:
            return f"550 5.1.1 <{address}>: Recipient address rejected: refused by the test server"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        msg = BytesParser(policy=policy.default).parsebytes(raw)
        text = msg.get_body(preferencelist=("plain",))
        html = msg.get_body(preferencelist=("html",))
        attachments = []
        for part in msg.iter_attachments():
            data = part.get_payload(decode=True) or b""
            attachments.append({
                "filename": part.get_filename(),
                "content_type": part.get_content_type(),
                "size": len(data),
                "sha256": hashlib.sha256(data).hexdigest(),
            })
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "tls": session.ssl is not None,
            "authenticated": bool(session.authenticated),
            "subject": str(msg["subject"]),
            "from": str(msg["from"]),
            "to": str(msg["to"]),
            "text": text.get_content() if text is not None else None,
            "html": html.get_content() if html is not None else None,
            "attachments": attachments,
        }
        with self.lock:
            self.count += 1
            n = self.count
        (self.folder / f"{n:03}.eml").write_bytes(raw)
        (self.folder / f"{n:03}.json").write_text(json.dumps(record, ensure_ascii=False, indent=1))
        return "250 Message accepted for delivery"


class Auth:
    def __init__(self, user: str, password: str):
        self.user = user.encode()
        self.password = password.encode()

    def __call__(self, server, session, envelope, mechanism, auth_data):
        ok = (
            isinstance(auth_data, LoginPassword)
            and auth_data.login == self.user
            and auth_data.password == self.password
        )
        return AuthResult(success=ok, handled=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--user", required=True)
    ap.add_argument("--password", required=True)
    ap.add_argument("--refuse", action="append", default=[])
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(args.cert, args.key)
    controller = Controller(
        Handler(folder, {r.lower() for r in args.refuse}),
        hostname="127.0.0.1",
        port=args.port,
        tls_context=tls,
        require_starttls=True,
        authenticator=Auth(args.user, args.password),
        auth_required=True,
        auth_require_tls=True,
    )
    controller.start()
    print("ready", flush=True)
    try:
        threading.Event().wait()
    finally:
        controller.stop()


if __name__ == "__main__":
    sys.exit(main())
