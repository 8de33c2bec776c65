"""Serializers of the launch form's options (``runs.launch_options_api``): the gold
versions, models, credentials, variants and defaults a project's launch may choose from.
"""

from __future__ import annotations

from rest_framework import serializers

from evaluation.runs.serializers import ModelChoiceSerializer, ParamsSerializer, VariantSerializer


class GoldOptionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    version = serializers.IntegerField()
    status = serializers.CharField()
    documents = serializers.IntegerField()


class SuggestedModelSerializer(ModelChoiceSerializer):
    label = serializers.CharField()


class CredentialOptionSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="Chosen as a model's settings.credential.")
    base_urls = serializers.ListField(
        child=serializers.CharField(), help_text="The only servers its key is sent to."
    )


class RegisteredModelSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="Launched as a model's model (no path is shown).")
    backends = serializers.ListField(
        child=serializers.CharField(), help_text="The backends that may load it."
    )


class LaunchDefaultsSerializer(serializers.Serializer):
    level = serializers.IntegerField()
    limit = serializers.IntegerField(allow_null=True)
    shards = serializers.IntegerField(allow_null=True)
    params = ParamsSerializer()


class FormFieldOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    title = serializers.CharField()


class LaunchOptionsSerializer(serializers.Serializer):
    can_launch = serializers.BooleanField()
    kind = serializers.CharField(help_text="The project's kind: spans or items.")
    fields = FormFieldOptionSerializer(
        many=True, help_text="Item projects: the form fields a run may answer."
    )
    gold_standards = GoldOptionSerializer(many=True)
    backends = serializers.ListField(child=serializers.CharField())
    suggested_models = SuggestedModelSerializer(many=True)
    registered_models = RegisteredModelSerializer(
        many=True,
        help_text="The operator's models (MODEL_REGISTRY): the local models a project admin "
        "may launch, by name.",
    )
    hub_allowed = serializers.ListField(
        child=serializers.CharField(),
        help_text="Patterns of hub ids a project admin may launch unregistered "
        "(MODEL_HUB_ALLOWED).",
    )
    credentials = CredentialOptionSerializer(
        many=True,
        help_text="The operator's model-server credentials this project may use (names, "
        "never keys).",
    )
    variants = VariantSerializer(many=True)
    levels = serializers.ListField(child=serializers.IntegerField())
    defaults = LaunchDefaultsSerializer()
