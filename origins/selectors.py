from django.http import Http404

from origins.models import Origin


def get_own_origin(user, public_id: str) -> Origin:
    """The account's origin; another account's reads exactly like a missing one."""
    origin = Origin.objects.filter(user=user, public_id=str(public_id)).first()
    if origin is None:
        raise Http404("No such origin.")
    return origin
