from django.urls import include, path

from bench.views import insert_one

urlpatterns = [
    path("bench/insert", insert_one),
    path("", include("crosstalk.urls")),
]
