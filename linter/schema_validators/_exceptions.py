"""What the generated validators raise, without importing fastjsonschema (its
package import builds every draft's code generator: a one-file run only needs
to know "valid or not"; linter.schema re-validates invalid documents with
jsonschema, which explains each error)."""


class JsonSchemaValueException(ValueError):
    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)
        self.message, self.value, self.name, self.definition, self.rule = message, value, name, definition, rule


class JsonSchemaValuesException(ValueError):
    def __init__(self, errors):
        super().__init__("validation errors")
        self.errors = errors
