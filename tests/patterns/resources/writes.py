"""Writes compared by rows: columns PATCH must leave alone, values the
database rounds, reverse one-to-one and reverse to-one relations, nested
objects naming existing rows, refused deletes."""

from __future__ import annotations

from tastypie import fields
from tastypie.authorization import Authorization

from tests.patterns.models import Account, AccountProfile, Document, Invoice, Keeper, Lender, Shelf


def build(base: type) -> list[type]:
    class DocumentResource(base):
        """Every kind of column a careless PATCH rewrites."""

        class Meta:
            queryset = Document.objects.all()
            resource_name = "document"
            authorization = Authorization()

        def dehydrate_summary(self, bundle):
            return bundle.obj.summary.upper()

    class PricedDocumentResource(base):
        class Meta:
            queryset = Document.objects.all()
            resource_name = "priceddocument"
            fields = ["id", "title", "price", "remark"]
            authorization = Authorization()
            always_return_data = True

    class AccountProfileResource(base):
        account_id = fields.IntegerField(attribute="account_id", readonly=True)

        class Meta:
            queryset = AccountProfile.objects.all()
            resource_name = "accountprofile"
            authorization = Authorization()

    class InvoiceResource(base):
        account_id = fields.IntegerField(attribute="account_id", null=True, readonly=True)

        class Meta:
            queryset = Invoice.objects.all()
            resource_name = "invoice"
            authorization = Authorization()

    class AccountResource(base):
        """Tastypie's Job/Payment and Tag/ExtraData: the reverse side written."""

        profile = fields.ToOneField(
            AccountProfileResource, "profile", related_name="account", null=True, full=True
        )
        invoices = fields.ToManyField(
            InvoiceResource, "invoices", related_name="account", null=True, full=True
        )

        class Meta:
            queryset = Account.objects.all()
            resource_name = "account"
            authorization = Authorization()

    class ShelfResource(base):
        class Meta:
            queryset = Shelf.objects.all()
            resource_name = "shelf"
            authorization = Authorization()

    class KeeperResource(base):
        shelf = fields.ToOneField(ShelfResource, "shelf")

        class Meta:
            queryset = Keeper.objects.all()
            resource_name = "keeper"
            authorization = Authorization()

    class LenderResource(base):
        shelf = fields.ToOneField(ShelfResource, "shelf")

        class Meta:
            queryset = Lender.objects.all()
            resource_name = "lender"
            authorization = Authorization()

    return [
        DocumentResource,
        PricedDocumentResource,
        AccountProfileResource,
        InvoiceResource,
        AccountResource,
        ShelfResource,
        KeeperResource,
        LenderResource,
    ]
