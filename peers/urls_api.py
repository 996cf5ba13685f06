"""/api/v1/ routes of peer messaging: the agent's (/api/v1/agent/…) and the person's."""

from chats.api import api_path
from peers import api_views
from peers.hooks.views import HookApi

AGENT = "api/v1/agent"
AGENT_CHAT = rf"{AGENT}/chats/(?P<chat_id>[^/]+)"
MESSAGE = r"api/v1/messages/(?P<message_id>[^/]+)"
# One chat's routes that carry peers rules (the switch, Stop) and its reach.
CHAT = r"api/v1/chats/(?P<chat_id>[^/]+)"

urlpatterns = [
    api_path(f"{AGENT}/chats", api_views.AgentChatsApi.as_view(), name="api-agent-chats"),
    api_path(
        rf"{AGENT}/chats/(?P<chat_id>[^/]+)",
        api_views.AgentChatApi.as_view(),
        name="api-agent-chat",
    ),
    api_path(f"{AGENT}/messages", api_views.agent_messages, name="api-agent-messages"),
    api_path(f"{AGENT}/inbox", api_views.agent_inbox, name="api-agent-inbox"),
    api_path(f"{AGENT}/inbox/seen", api_views.AgentSeenApi.as_view(), name="api-agent-inbox-seen"),
    api_path(rf"{AGENT}/hooks/(?P<cli>[^/]+)", HookApi.as_view(), name="api-agent-hooks"),
    api_path(r"api/v1/chats/(?P<chat_id>[^/]+)", api_views.ChatApi.as_view(), name="api-chat"),
    api_path(
        r"api/v1/chats/(?P<chat_id>[^/]+)/stop",
        api_views.ChatStopApi.as_view(),
        name="api-chat-stop",
    ),
    api_path(
        r"api/v1/chats/(?P<chat_id>[^/]+)/reach", api_views.ReachApi.as_view(), name="api-reach"
    ),
    api_path("api/v1/connections", api_views.ConnectionsApi.as_view(), name="api-connections"),
    api_path("api/v1/messages", api_views.MessagesApi.as_view(), name="api-messages"),
    api_path(MESSAGE, api_views.MessageApi.as_view(), name="api-message"),
    api_path(f"{MESSAGE}/cancel", api_views.MessageCancelApi.as_view(), name="api-message-cancel"),
    api_path("api/v1/activity", api_views.ActivityApi.as_view(), name="api-activity"),
]
