"""The fake server over real HTTP: what it records and answers besides the model calls."""

import http.client
import json


def send(fake, method: str, path: str, body: dict | None = None, **headers):
    connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=10)
    try:
        data = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        connection.close()


def post(fake, path: str, body: dict, **headers):
    return send(fake, "POST", path, body, **headers)


def test_it_records_each_request_with_path_headers_and_body(fake_model):
    body = {"model": "m", "messages": [{"role": "user", "content": "hi there"}]}

    status, kind, payload = post(fake_model, "/v1/messages?beta=true", body, **{"x-api-key": "k"})

    assert (status, kind) == (200, "application/json")
    assert json.loads(payload)["content"] == [{"type": "text", "text": "Fake model saw: hi there"}]
    (request,) = fake_model.requests_for("anthropic")
    assert (request.method, request.path, request.body) == ("POST", "/v1/messages?beta=true", body)
    assert request.headers["x-api-key"] == "k"
    assert fake_model.saw("hi there") and not fake_model.saw("hi there", "openai")
    assert fake_model.last_user_text() == "hi there"


def test_it_accepts_system_entries_inside_messages(fake_model):
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "[[say ok]]"}]},
        {"role": "system", "content": "SessionStart hook additional context: x"},
    ]

    payload = post(fake_model, "/v1/messages", {"messages": messages, "stream": True})[2]

    assert b'"text_delta", "text": "ok"' in payload


def test_it_answers_head_and_count_tokens(fake_model):
    assert send(fake_model, "HEAD", "/")[0] == 200
    payload = post(fake_model, "/v1/messages/count_tokens", {"messages": []})[2]

    assert json.loads(payload) == {"input_tokens": 10}
    assert fake_model.model_calls() == []


def test_it_fails_the_next_model_call_when_told(fake_model):
    fake_model.fail_next(529)

    assert post(fake_model, "/v1/responses", {"input": []})[0] == 529
    assert post(fake_model, "/v1/responses", {"input": []})[0] == 200


def test_it_answers_404_for_an_unknown_path_and_records_it(fake_model):
    assert post(fake_model, "/v1/chat/completions", {})[0] == 404
    assert fake_model.requests_for("other")[0].path == "/v1/chat/completions"


def test_it_reads_back_the_tool_results_of_the_latest_model_call(fake_model):
    call = {"type": "function_call", "name": "exec_command", "call_id": "c1", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "Output:\nhi\n"}
    body = {"input": [{"role": "user", "content": [{"type": "input_text", "text": "[[bash x]]"}]},
                      call, output]}  # fmt: skip

    post(fake_model, "/v1/responses", body)

    assert fake_model.tool_results("openai") == ["Output:\nhi\n"]
    assert fake_model.model_calls("openai")[0].answer.text == "done"
