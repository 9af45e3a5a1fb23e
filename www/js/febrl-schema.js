// The linkage schema of the FEBRL person records: data/febrl/schema.toml as the page
// reads it (the page may fetch nothing: connect-src 'none'), written as JSON.
// tests/web_schema.rs checks that the two are the same schema.
export const FEBRL = {
  "version": 1,
  "id": "rec_id",
  "epsilon": 0.1,
  "field": [
    {
      "name": "given_name",
      "kind": "name"
    },
    {
      "name": "surname",
      "kind": "name"
    },
    {
      "name": "street_number",
      "kind": "number"
    },
    {
      "name": "address_1",
      "kind": "string"
    },
    {
      "name": "address_2",
      "kind": "string"
    },
    {
      "name": "suburb",
      "kind": "string"
    },
    {
      "name": "postcode",
      "kind": "number"
    },
    {
      "name": "state",
      "kind": "suppress"
    },
    {
      "name": "date_of_birth",
      "kind": "date",
      "invalid": "missing"
    },
    {
      "name": "soc_sec_id",
      "kind": "number"
    }
  ],
  "block": [
    {
      "field": "given_name"
    },
    {
      "field": "surname"
    },
    {
      "field": "soc_sec_id",
      "ed": 1
    },
    {
      "field": "postcode",
      "ed": 0
    }
  ]
};
