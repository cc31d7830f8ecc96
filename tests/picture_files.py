"""Pictures for the tests of uploads (catalog/pictures.py): files made by Pillow, as cameras and editors
write them, and a product's `image` set to a kept one."""
import io

from PIL import Image, ImageCms, PngImagePlugin

from catalog.gateway import client as dynamo
from catalog.gateway import codec, keys


def picture_bytes(kind="JPEG", size=(400, 300), *, mode="RGB", orientation=None):
    """A picture file as a camera or an editor writes one: with EXIF (the camera, a GPS position, and
    `orientation` when given), an ICC colour profile, and for a PNG a text chunk."""
    picture = Image.new(mode, size, "#c03020" if mode in ("RGB", "RGBA") else 128)
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x8825] = {1: "N", 2: (52.0, 31.0, 12.0)}  # GPSInfo: latitude
    if orientation:
        exif[0x0112] = orientation
    extra = {"exif": exif.tobytes()}
    if mode in ("RGB", "RGBA"):
        extra["icc_profile"] = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    if kind == "PNG":
        text = PngImagePlugin.PngInfo()
        text.add_text("Author", "Someone private")
        extra["pnginfo"] = text
    out = io.BytesIO()
    picture.save(out, kind, **extra)
    return out.getvalue()


def set_product_image(product_id, image):
    """The product item's `image`, written past the importer (which takes only static paths and https URLs)."""
    dynamo.client().update_item(
        TableName=dynamo.table_name(), Key=codec.serialize(keys.product_key(product_id)),
        UpdateExpression="SET #image = :image", ExpressionAttributeNames={"#image": "image"},
        ExpressionAttributeValues=codec.serialize({":image": image}),
    )
