// The forms' rules, for the islands and the deploy scripts: the same
// description the migrations and `site serve` are made from. Generated from
// generator/src/forms/ by `site forms --write`; a test fails when it differs.

export const CONTACT_MESSAGES = {
  "maxLength": {
    "attachment_key": 1024,
    "attachment_url": 2048,
    "company": 200,
    "email": 254,
    "message": 5000,
    "name": 200,
    "page": 2048,
    "phone": 50,
    "subject": 200
  },
  "minFillMs": 3000,
  "patterns": {
    "attachment_key": "^public/[0-9]{13}_[A-Za-z0-9._-]{1,91}$",
    "attachment_url": "^https?://[A-Za-z0-9.:-]+/storage/v1/object/public/contact-attachments/public/[!-~]+$",
    "email": "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$",
    "page": "^/[!-~]*$"
  },
  "rateLimit": 5,
  "required": [
    "name",
    "email",
    "subject",
    "message",
    "privacy",
    "page",
    "fill_ms"
  ],
  "retention": {
    "defaultMonths": 12,
    "setting": "contact.retention_months"
  },
  "sendKey": "send_key",
  "table": "contact_messages"
} as const;

export const JOB_APPLICATIONS = {
  "maxLength": {
    "country": 2,
    "cv_key": 1024,
    "email": 254,
    "job_id": 100,
    "name": 200,
    "note": 5000,
    "page": 2048,
    "phone": 50,
    "profile_url": 2048
  },
  "minFillMs": 3000,
  "patterns": {
    "country": "^[A-Z]{2}$",
    "cv_key": "^[a-z0-9][a-z0-9-]{0,99}/[0-9]{13}_[A-Za-z0-9._-]{1,91}$",
    "email": "^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$",
    "job_id": "^[a-z0-9][a-z0-9-]{0,99}$",
    "page": "^/[!-~]*$",
    "profile_url": "^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[!-~]*)?$"
  },
  "rateLimit": 5,
  "required": [
    "job_id",
    "name",
    "email",
    "phone",
    "country",
    "note",
    "cv_key",
    "privacy",
    "page",
    "fill_ms"
  ],
  "retention": {
    "defaultMonths": 6,
    "setting": "careers.retention_months"
  },
  "sendKey": "send_key",
  "table": "job_applications"
} as const;

export const CONTACT_ATTACHMENTS = {
  "keyPattern": "^public/[0-9]{13}_[A-Za-z0-9._-]{1,91}$",
  "maxBytes": 5242880,
  "name": "contact-attachments",
  "public": true,
  "types": [
    "image/jpeg",
    "image/png",
    "image/gif"
  ]
} as const;

export const APPLICATIONS = {
  "keyPattern": "^[a-z0-9][a-z0-9-]{0,99}/[0-9]{13}_[A-Za-z0-9._-]{1,91}$",
  "maxBytes": 10485760,
  "name": "applications",
  "public": false,
  "types": [
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
  ]
} as const;
