from django.conf import settings
from django.db import models


class InboxDone(models.Model):
    """An inbox item the person marked done (crosstalk.inbox): kept on the server, so
    "done" follows them to every browser, REST and MCP. `item` is the item's id,
    "<kind>:<the id of what it is about>"."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="+")
    item = models.CharField(max_length=80)
    done_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint("user", "item", name="inbox_done_once")]

    def __str__(self) -> str:
        return f"{self.user_id} {self.item}"
