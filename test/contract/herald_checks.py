"""Herald's own checks for schemathesis (loaded through SCHEMATHESIS_HOOKS).

Every error Herald answers is `{"code": <integer>, "error": <string>}` and
nothing else, whether or not the document lists the status: SPEC-NOTES.md,
Errors. The pages opened from account emails are the one exception, and the
document says so: their refusals are HTML pages for people.
"""

import json

import hypothesis.internal.lambda_sources as lambda_sources
import schemathesis

# CPython 3.11 (seen with 3.11.7; Debian 12 ships 3.11.2) can fail ast.parse with
# "SystemError: AST constructor recursion depth mismatch" after the recursion limit
# changed, which Hypothesis does while it draws; Hypothesis parses a lambda's source
# only to name it in a message, so a name is enough.
_describe_lambda = lambda_sources.lambda_description


def _lambda_description(function):
    try:
        return _describe_lambda(function)
    except SystemError:
        return "lambda"


lambda_sources.lambda_description = _lambda_description

# Operations whose refusals are pages (text/html), as the document declares them.
HTML_PAGES = {"/1.1/verifyEmail/{token}", "/1.1/resetPassword/{token}"}


@schemathesis.check
def error_is_code_and_error(ctx, response, case):
    if response.status_code < 400:
        return None
    content_type = response.headers.get("content-type", [""])
    content_type = content_type[0] if isinstance(content_type, list) else content_type
    if case.operation.path in HTML_PAGES and content_type.startswith("text/html"):
        return None
    try:
        body = json.loads(response.content)
    except ValueError as error:
        raise AssertionError(f"error answer {response.status_code} is not JSON: {response.content[:200]!r}") from error
    if not isinstance(body, dict) or set(body) != {"code", "error"}:
        raise AssertionError(f"error answer {response.status_code} is not {{code, error}}: {str(body)[:200]}")
    if not isinstance(body["code"], int) or isinstance(body["code"], bool) or not isinstance(body["error"], str):
        raise AssertionError(f"error answer {response.status_code} has a code that is not an integer or an error that is not a string: {str(body)[:200]}")
    return None
